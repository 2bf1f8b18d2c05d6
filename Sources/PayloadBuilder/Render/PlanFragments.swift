/// The JSON pieces of one event that do not depend on the recipient's
/// language, escaped once per event into one buffer and then copied into
/// every template (FCM and APNs, each language, each shortening tried).
///
/// Ranges index `bytes`; strings are stored quoted unless a name says otherwise.
struct PlanFragments {
    private(set) var bytes: [UInt8] = []
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

    /// No fragments: the placeholder while a plan is being built.
    init() {}

    init(plan: RenderPlan) {
        let event = plan.event
        // Room for the seed event's fragments (about 1,100 bytes) without growing.
        var out = ByteWriter(capacity: 2048)
        title = Self.quoted(plan.text.title, into: &out)
        senderName = Self.quoted(event.sender.displayName, into: &out)

        let notifeeStart = out.count
        out.appendLiteral("\"notifee_options\":{\"ios\":{\"communicationInfo\":{")
        out.appendMember("conversationId", event.conversation.id)
        out.append(UInt8(ascii: ","))
        out.appendMember("messageId", event.message.id)
        if let group = event.conversation.title {
            out.append(UInt8(ascii: ","))
            out.appendMember("groupName", group)
        }
        out.appendLiteral(",\"sender\":{")
        out.appendMember("id", event.sender.id)
        out.append(UInt8(ascii: ","))
        out.appendMember("displayName", event.sender.displayName)
        if let avatarURL = plan.avatarURL {
            out.append(UInt8(ascii: ","))
            out.appendMember("avatar", avatarURL)
        }
        out.appendLiteral("}}}}")
        notifee = notifeeStart..<out.count

        recordData(plan: plan, into: &out)
        recordFCMAfterData(plan: plan, into: &out)
        recordAPNsAfterAlert(plan: plan, into: &out)
        bytes = out.bytes
    }

    /// Appends the fragment at `range` (of `bytes`), read in place: no
    /// `ArraySlice`. Inlined, like the other appenders, so that the caller's
    /// fragments are not copied into a temporary for the call.
    @inline(__always)
    func append(_ range: Range<Int>, to out: inout ByteWriter) {
        bytes.withUnsafeBufferPointer { out.append(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// `append(_:to:)` onto a byte array.
    @inline(__always)
    func append(_ range: Range<Int>, to out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }

    // MARK: building

    private static func quoted(_ text: String, into out: inout ByteWriter) -> Range<Int> {
        let start = out.count
        out.appendJSONString(text)
        return start..<out.count
    }

    /// The gateway's standard keys (under the app's names) then the caller's
    /// extra keys, split around the `text` entry, whose value varies.
    private mutating func recordData(plan: RenderPlan, into out: inout ByteWriter) {
        let event = plan.event
        var afterText = false
        var before = out.count..<out.count
        var after = before
        var wroteInPart = false
        for (key, name) in zip(DataKeyNames.Standard.ordered, plan.app.dataKeys.wireNames) {
            guard let name else { continue }
            let value: String?
            switch key {
            case .title: value = plan.text.title
            case .text:
                before = before.lowerBound..<out.count
                dataTextKey = Self.quoted(name, into: &out)
                afterText = true
                wroteInPart = false
                after = out.count..<out.count
                continue
            case .senderID: value = event.sender.id
            case .senderName: value = event.sender.displayName
            case .avatarURL: value = plan.avatarURL
            case .isRichText: value = event.message.richText ? "true" : "false"
            case .threadID: value = event.conversation.id
            case .messageID: value = event.message.id
            }
            guard let value else { continue }
            if wroteInPart { out.append(UInt8(ascii: ",")) }
            out.appendMember(dynamicKey: name, value)
            wroteInPart = true
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

    private mutating func recordFCMAfterData(plan: RenderPlan, into out: inout ByteWriter) {
        let event = plan.event
        let start = out.count
        out.appendLiteral(",\"android\":{")
        out.appendMember("collapse_key", event.conversation.id)
        out.append(UInt8(ascii: ","))
        out.appendMember("priority", event.notification.priority.rawValue)
        // `"ttl":"<seconds>s"`: digits need no escaping.
        out.appendLiteral(",\"ttl\":\"")
        out.appendDecimal(Int64(event.notification.ttlSeconds))
        out.appendLiteral("s\"},\"apns\":{\"headers\":{")
        out.appendMember("apns-priority", plan.apnsPriority)
        out.append(UInt8(ascii: ","))
        out.appendMember("apns-expiration", plan.expiration)
        out.append(UInt8(ascii: ","))
        out.appendMember("apns-collapse-id", plan.collapseID)
        out.appendLiteral("},\"payload\":{")
        let apsStart = out.count
        out.appendLiteral("\"aps\":{\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")
        if let sound = event.notification.sound {
            out.append(UInt8(ascii: ","))
            out.appendMember("sound", sound)
        }
        fcmAfterData = start..<out.count
        fcmApsBytes = out.count - apsStart
    }

    private mutating func recordAPNsAfterAlert(plan: RenderPlan, into out: inout ByteWriter) {
        let event = plan.event
        let start = out.count
        if let sound = event.notification.sound {
            out.append(UInt8(ascii: ","))
            out.appendMember("sound", sound)
        }
        out.append(UInt8(ascii: ","))
        out.appendMember("thread-id", event.conversation.id)
        out.appendLiteral(",\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")
        apnsAfterAlert = start..<out.count
    }

    // MARK: writing per template

    /// Whether the data map has any entry.
    var hasData: Bool { !dataBefore.isEmpty || dataTextKey != nil || !dataAfter.isEmpty }

    /// Appends the data members (no braces) with `dataText` as the `text` value.
    @inline(__always)
    func appendData(dataText: String, to out: inout ByteWriter) {
        var wrote = false
        if !dataBefore.isEmpty {
            append(dataBefore, to: &out)
            wrote = true
        }
        if let dataTextKey {
            if wrote { out.append(UInt8(ascii: ",")) }
            append(dataTextKey, to: &out)
            out.append(UInt8(ascii: ":"))
            out.appendJSONString(dataText)
            wrote = true
        }
        if !dataAfter.isEmpty {
            if wrote { out.append(UInt8(ascii: ",")) }
            append(dataAfter, to: &out)
        }
    }

    /// Appends the quoted notification body for `content` (the rule of
    /// `NotificationText.body(content:)`, written without building the string).
    @inline(__always)
    func appendBody(content: String, isGroup: Bool, to out: inout ByteWriter) {
        guard isGroup else { return out.appendJSONString(content) }
        guard !content.isEmpty else { return append(senderName, to: &out) }
        out.append(UInt8(ascii: "\""))
        append(senderNameUnquoted, to: &out)
        out.appendLiteral(": ")
        out.appendJSONStringContent(content)
        out.append(UInt8(ascii: "\""))
    }
}
