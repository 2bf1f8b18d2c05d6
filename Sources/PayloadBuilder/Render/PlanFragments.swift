/// The JSON pieces of one event that do not depend on the recipient's
/// language, escaped once per event into the plan's buffer and then copied
/// into every template (FCM and APNs, each language, each shortening tried),
/// which are written after them in the same buffer.
///
/// Ranges index that buffer; strings are stored quoted unless a name says otherwise.
struct PlanFragments {
    /// `"<title>"`.
    private(set) var title: Range<Int> = 0..<0
    /// `"<sender display name>"`, the body of a group message without content.
    private(set) var senderName: Range<Int> = 0..<0
    /// The sender's display name escaped, without quotes: the start of a group body.
    var senderNameUnquoted: Range<Int> { senderName.lowerBound + 1..<senderName.upperBound - 1 }
    /// `"notifee_options":{…}`: the Communication Notification block.
    private(set) var notifee: Range<Int> = 0..<0
    /// The data members before and after the `text` entry, comma-separated,
    /// without outer commas; `dataTextKey` is the quoted name of the `text`
    /// entry, nil when the app leaves it out.
    private(set) var dataBefore: Range<Int> = 0..<0
    private(set) var dataTextKey: Range<Int>?
    private(set) var dataAfter: Range<Int> = 0..<0
    /// FCM, after `data`: `,"android":{…},"apns":{"headers":{…},"payload":{"aps":{…`
    /// (the `aps` object left open for the badge).
    private(set) var fcmAfterData: Range<Int> = 0..<0
    /// The bytes of `fcmAfterData` from `"aps"` on.
    private(set) var fcmApsBytes = 0
    /// APNs, after the alert: `[,"sound":…],"thread-id":…,"category":…,"mutable-content":1`.
    private(set) var apnsAfterAlert: Range<Int> = 0..<0
    /// Where the event strings were first escaped, quoted: what the
    /// `/v1/render` answer's persona copies (`ReportOutput`).
    private(set) var escaped = Escaped()

    /// The fragments of `event`, written at the end of `out`; the other
    /// values are the plan's, worked out before.
    init(title: borrowing String, avatarURL: borrowing String?, collapseID: String, expirationSeconds: Int64,
         event: borrowing Event, dataKeys: borrowing DataKeyNames, into out: inout ByteWriter) {
        self.title = Self.quoted(title, into: &out)
        senderName = Self.quoted(event.sender.displayName, into: &out)

        // Each event string is escaped the first time it is written; every
        // later use copies those bytes (`Escaped` holds where they are).
        var escaped = Escaped()
        let notifeeStart = out.count
        out.appendLiteral("\"notifee_options\":{\"ios\":{\"communicationInfo\":{\"conversationId\":")
        escaped.conversationID = Self.quoted(event.conversation.id, into: &out)
        out.appendLiteral(",\"messageId\":")
        escaped.messageID = Self.quoted(event.message.id, into: &out)
        if let group = event.conversation.title {
            out.appendLiteral(",\"groupName\":")
            let groupStart = out.count
            defer { escaped.groupName = groupStart..<out.count }
            // Without `notification.title`, the title is the group's name.
            // Byte for byte: `==` would also take a canonically equivalent
            // spelling (é as e + U+0301), whose bytes are not the group's.
            if group.hasSameCodeUnits(as: title) {
                out.appendCopy(of: self.title)
            } else {
                _ = Self.quoted(group, into: &out)
            }
        }
        out.appendLiteral(",\"sender\":{\"id\":")
        escaped.senderID = Self.quoted(event.sender.id, into: &out)
        out.appendLiteral(",\"displayName\":")
        out.appendCopy(of: senderName)
        if let avatarURL = copy avatarURL {
            out.appendLiteral(",\"avatar\":")
            escaped.avatarURL = Self.quoted(avatarURL, into: &out)
        }
        out.appendLiteral("}}}}")
        notifee = notifeeStart..<out.count

        recordData(event: event, keys: dataKeys, escaped: escaped, into: &out)
        recordFCMAfterData(collapseID: collapseID, expirationSeconds: expirationSeconds, event: event,
                           escaped: &escaped, into: &out)
        recordAPNsAfterAlert(escaped: escaped, into: &out)
        self.escaped = escaped
    }

    // MARK: building

    private static func quoted(_ text: String, into out: inout ByteWriter) -> Range<Int> {
        let start = out.count
        out.appendJSONString(text)
        return start..<out.count
    }

    /// Where the event strings written more than once were first escaped
    /// (quoted, in the buffer being built).
    struct Escaped {
        var conversationID = 0..<0
        var messageID = 0..<0
        var senderID = 0..<0
        /// The conversation's title, when there is one.
        var groupName: Range<Int>?
        var avatarURL: Range<Int>?
        var sound: Range<Int>?
        /// `"apns-priority":"…","apns-expiration":"…"`, as FCM's `apns.headers` has them.
        var apnsPriorityAndExpiration = 0..<0
        /// `"apns-collapse-id":"…"`.
        var apnsCollapseID = 0..<0
    }

    /// The gateway's standard keys (under the app's names, escaped once per
    /// configuration) then the caller's extra keys, split around the `text`
    /// entry, whose value varies. Values are copies of the notifee block's.
    private mutating func recordData(event: borrowing Event, keys: borrowing DataKeyNames,
                                     escaped: Escaped, into out: inout ByteWriter) {
        var afterText = false
        var before = out.count..<out.count
        var after = before
        var wroteInPart = false
        let ordered = DataKeyNames.Standard.ordered
        let names = keys.quotedWireNames
        let nameBytes = names.bytes.span
        do {
            for index in 0..<names.count {
                let range = names.range(at: index)
                guard !range.isEmpty else { continue }
                let name = nameBytes.extracting(range)
                let value: Range<Int>?
                switch ordered[index] {
                case .title: value = title
                case .text:
                    before = before.lowerBound..<out.count
                    let keyStart = out.count
                    out.append(name)
                    dataTextKey = keyStart..<out.count
                    afterText = true
                    wroteInPart = false
                    after = out.count..<out.count
                    continue
                case .senderID: value = escaped.senderID
                case .senderName: value = senderName
                case .avatarURL:
                    // No avatar forwarded: an empty string, not a missing key. The
                    // product's extension (seed 003) stops at a missing key without
                    // calling its content handler, so iOS shows the notification
                    // plain after 30 s; an empty string it reads as "no avatar".
                    guard escaped.avatarURL == nil else { value = escaped.avatarURL; break }
                    if wroteInPart { out.append(UInt8(ascii: ",")) }
                    out.append(name)
                    out.appendLiteral(":\"\"")
                    wroteInPart = true
                    continue
                case .isRichText:
                    if wroteInPart { out.append(UInt8(ascii: ",")) }
                    out.append(name)
                    out.appendLiteral(event.message.richText ? ":\"true\"" : ":\"false\"")
                    wroteInPart = true
                    continue
                case .threadID: value = escaped.conversationID
                case .messageID: value = escaped.messageID
                }
                guard let value else { continue }
                if wroteInPart { out.append(UInt8(ascii: ",")) }
                out.append(name)
                out.append(UInt8(ascii: ":"))
                out.appendCopy(of: value)
                wroteInPart = true
            }
        }
        for entry in event.data {
            if wroteInPart { out.append(UInt8(ascii: ",")) }
            out.appendMember(dynamicKey: entry.key, entry.value)
            wroteInPart = true
        }
        if afterText {
            after = after.lowerBound..<out.count
        } else {
            before = before.lowerBound..<out.count
        }
        dataBefore = before
        dataAfter = after
    }

    private mutating func recordFCMAfterData(collapseID: String, expirationSeconds: Int64, event: borrowing Event,
                                             escaped: inout Escaped, into out: inout ByteWriter) {
        let start = out.count
        out.appendLiteral(",\"android\":{\"collapse_key\":")
        out.appendCopy(of: escaped.conversationID)
        // The priority names and `"ttl":"<seconds>s"` need no escaping.
        switch event.notification.priority {
        case .high: out.appendLiteral(",\"priority\":\"high\",\"ttl\":\"")
        case .normal: out.appendLiteral(",\"priority\":\"normal\",\"ttl\":\"")
        }
        out.appendDecimal(Int64(event.notification.ttlSeconds))
        // FCM infers the push type when it is left out; it is stated, as the
        // direct requests do (PROTOCOLS.md A2, A7: the extension runs for an alert).
        out.appendLiteral("s\"},\"apns\":{\"headers\":{\"apns-push-type\":\"alert\",")
        // The members the direct APNs requests have too, as their headers.
        let headersStart = out.count
        switch event.notification.priority {
        case .high: out.appendLiteral("\"apns-priority\":\"10\"")
        case .normal: out.appendLiteral("\"apns-priority\":\"5\"")
        }
        out.appendLiteral(",\"apns-expiration\":\"")
        out.appendDecimal(expirationSeconds)
        out.append(UInt8(ascii: "\""))
        escaped.apnsPriorityAndExpiration = headersStart..<out.count
        out.append(UInt8(ascii: ","))
        let collapseIDStart = out.count
        out.appendLiteral("\"apns-collapse-id\":")
        out.appendJSONString(collapseID)
        escaped.apnsCollapseID = collapseIDStart..<out.count
        out.appendLiteral("},\"payload\":{")
        let apsStart = out.count
        out.appendLiteral("\"aps\":{\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")
        if let sound = event.notification.sound {
            out.appendLiteral(",\"sound\":")
            escaped.sound = Self.quoted(sound, into: &out)
        }
        // iOS groups a conversation's notifications by it, through FCM as directly.
        out.appendLiteral(",\"thread-id\":")
        out.appendCopy(of: escaped.conversationID)
        fcmAfterData = start..<out.count
        fcmApsBytes = out.count - apsStart
    }

    private mutating func recordAPNsAfterAlert(escaped: Escaped, into out: inout ByteWriter) {
        let start = out.count
        if let sound = escaped.sound {
            out.appendLiteral(",\"sound\":")
            out.appendCopy(of: sound)
        }
        out.appendLiteral(",\"thread-id\":")
        out.appendCopy(of: escaped.conversationID)
        out.appendLiteral(",\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")
        apnsAfterAlert = start..<out.count
    }

    // MARK: writing per template

    /// Whether the data map has any entry.
    var hasData: Bool { !dataBefore.isEmpty || dataTextKey != nil || !dataAfter.isEmpty }

    /// Appends the data members (no braces) with `dataText` as the `text`
    /// value, into the buffer the fragments are in.
    @inline(__always)
    func appendData(dataText: String, to out: inout ByteWriter) {
        var wrote = false
        if !dataBefore.isEmpty {
            out.appendCopy(of: dataBefore)
            wrote = true
        }
        if let dataTextKey {
            if wrote { out.append(UInt8(ascii: ",")) }
            out.appendCopy(of: dataTextKey)
            out.append(UInt8(ascii: ":"))
            out.appendJSONString(dataText)
            wrote = true
        }
        if !dataAfter.isEmpty {
            if wrote { out.append(UInt8(ascii: ",")) }
            out.appendCopy(of: dataAfter)
        }
    }

    /// Appends the quoted notification body for `content` (the rule of
    /// `NotificationText.body(content:)`, written without building the string).
    @inline(__always)
    func appendBody(content: String, isGroup: Bool, to out: inout ByteWriter) {
        guard isGroup else { return out.appendJSONString(content) }
        guard !content.isEmpty else { return out.appendCopy(of: senderName) }
        out.append(UInt8(ascii: "\""))
        out.appendCopy(of: senderNameUnquoted)
        out.appendLiteral(": ")
        out.appendJSONStringContent(content)
        out.append(UInt8(ascii: "\""))
    }
}
