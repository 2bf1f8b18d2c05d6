/// The string map a notification carries for the app: the gateway's standard
/// keys (under the app's names) followed by the caller's extra keys. The
/// same entries go to FCM `message.data` and to the top level of the APNs
/// payload, where a Notification Service Extension reads them.
struct DataEntries {
    var entries: [DataEntry]

    init(event: Event, text: NotificationText, app: AppProfile, avatarURL: String?, shownText: String) {
        var entries: [DataEntry] = []
        entries.reserveCapacity(DataKeyNames.Standard.allCases.count + event.data.count)
        for key in DataKeyNames.Standard.allCases {
            guard let name = app.dataKeys.wireName(key) else { continue }
            let value: String?
            switch key {
            case .title: value = text.title
            case .text: value = shownText
            case .senderID: value = event.sender.id
            case .senderName: value = event.sender.displayName
            case .avatarURL: value = avatarURL
            case .isRichText: value = event.message.richText ? "true" : "false"
            case .threadID: value = event.conversation.id
            case .messageID: value = event.message.id
            }
            if let value { entries.append(DataEntry(name, value)) }
        }
        entries.append(contentsOf: event.data)
        self.entries = entries
    }

    /// The entries as JSON members separated by commas, without braces.
    func appendMembers(to out: inout [UInt8]) {
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.appendMember(dynamicKey: entry.key, entry.value)
        }
    }
}
