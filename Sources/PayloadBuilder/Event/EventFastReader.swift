/// The walk of `EventDecoder`'s fast path: reads the usual valid event
/// straight from the bytes with `JSONScanner`, checking every rule that does
/// not depend on the app, and answers nil for anything it does not fully
/// handle (any broken rule, a member of another type, an unknown or
/// repeated key, a key with an escape, a number it does not read), so that
/// the tree decoder reads the body and words the error.
///
/// Every check calls the rule the tree decoder calls (`ObjectReader`,
/// `DeviceToken`, `HTTPURL`, the enums' raw values), on the same strings.
struct EventFastReader {
    var scanner: JSONScanner
    let limits: EventLimits

    /// The members each object may have, as `EventDecoder.Keys` lists them.
    enum Names {
        static let event = KeyName.table(["event_id", "app", "conversation", "message", "sender", "recipients",
                                          "notification", "data"])
        static let conversation = KeyName.table(["id", "title"])
        static let message = KeyName.table(["id", "text", "kind", "rich_text"])
        static let sender = KeyName.table(["id", "display_name", "avatar_url"])
        static let notification = KeyName.table(["title", "sound", "ttl_seconds", "priority"])
        static let recipient = KeyName.table(["platform", "token", "badge", "locale", "user_id"])
    }

    /// Most data members read here; an event with more is left to the tree
    /// decoder (the duplicate-key check is a linear scan).
    static let maximumDataMembers = 32

    init(_ input: UnsafeBufferPointer<UInt8>, limits: EventLimits) {
        scanner = JSONScanner(input)
        self.limits = limits
    }

    /// An event with nothing in it, for `read(into:)` to fill.
    static func emptyEvent() -> Event {
        Event(eventID: "", conversation: Conversation(id: ""), message: Message(id: ""),
              sender: Sender(id: "", displayName: ""), recipients: [])
    }

    /// Reads the event into `event` (made by `emptyEvent`), checked as far
    /// as it can be without the app; false when the tree decoder must read
    /// the body. Its `eventID` stays empty when the body has none (a given
    /// one is never empty), to be defaulted. Members are moved into `event`
    /// as they are read, never copied.
    mutating func read(into event: inout Event) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var eventID: String?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            switch field(key, Names.event, seen: &seen) {
            case 0?: guard readIdentifier(&eventID) else { return false }
            case 1?: guard readString(&event.app, nonEmpty: true) else { return false }
            case 2?: guard let value = readConversation() else { return false }; event.conversation = value
            case 3?: guard let value = readMessage() else { return false }; event.message = value
            case 4?: guard let value = readSender() else { return false }; event.sender = value
            case 5?: guard let value = readRecipients() else { return false }; event.recipients = value
            case 6?:
                if !scanner.null() {
                    guard let value = readNotification() else { return false }
                    event.notification = value
                }
            case 7?:
                if !scanner.null() {
                    guard let value = readData() else { return false }
                    event.data = value
                }
            default: return false
            }
        }
        // conversation, message, sender and recipients were there (and not null: they were read).
        let required: UInt32 = 0b11_1100
        guard ended, seen & required == required, scanner.atEnd() else { return false }
        if let eventID { event.eventID = eventID }
        return true
    }

    // MARK: objects

    private mutating func readConversation() -> Conversation? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var id: String?, title: String?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            switch field(key, Names.conversation, seen: &seen) {
            case 0?: guard readIdentifier(&id) else { return nil }
            case 1?: guard readString(&title, nonEmpty: false, maxBytes: 1024) else { return nil }
            default: return nil
            }
        }
        guard ended, let id else { return nil }
        return Conversation(id: id, title: title?.isBlank == true ? nil : title)
    }

    private mutating func readMessage() -> Message? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var id: String?, text: String?, kindName: String?, richText: Bool?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            switch field(key, Names.message, seen: &seen) {
            case 0?: guard readIdentifier(&id) else { return nil }
            case 1?: guard readString(&text, nonEmpty: false) else { return nil }
            case 2?: guard readString(&kindName, nonEmpty: true) else { return nil }
            case 3?:
                if !scanner.null() {
                    guard let flag = scanner.bool() else { return nil }
                    richText = flag
                }
            default: return nil
            }
        }
        guard ended, let id else { return nil }
        var kind = MessageKind.text
        if let kindName {
            guard let known = MessageKind(named: kindName) else { return nil }
            kind = known
        }
        return Message(id: id, text: text ?? "", kind: kind, richText: richText ?? false)
    }

    private mutating func readSender() -> Sender? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var id: String?, displayName: String?, avatar: String?
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            switch field(key, Names.sender, seen: &seen) {
            case 0?: guard readIdentifier(&id) else { return nil }
            case 1?: guard readString(&displayName, nonEmpty: true, maxBytes: 1024) else { return nil }
            case 2?: guard readString(&avatar, nonEmpty: false, maxBytes: limits.maximumURLBytes) else { return nil }
            default: return nil
            }
        }
        guard ended, let id, let displayName, !displayName.isBlank else { return nil }
        if let avatar, !avatar.isEmpty, !HTTPURL.isAbsolute(avatar) { return nil }
        return Sender(id: id, displayName: displayName, avatarURL: avatar?.isEmpty == true ? nil : avatar)
    }

    private mutating func readNotification() -> NotificationOptions? {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return nil }
        var options = NotificationOptions()
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKey(&object, ended: &ended) {
            var text: String?
            switch field(key, Names.notification, seen: &seen) {
            case 0?:
                guard readString(&text, nonEmpty: false, maxBytes: 1024) else { return nil }
                if let text, !text.isBlank { options.title = text }
            case 1?:
                guard readString(&text, nonEmpty: false, maxBytes: 256) else { return nil }
                options.sound = text?.isEmpty == true ? nil : text
            case 2?:
                if !scanner.null() {
                    guard let ttl = scanner.integer(), (0...Int64(NotificationOptions.maximumTTLSeconds)).contains(ttl)
                    else { return nil }
                    options.ttlSeconds = Int(ttl)
                }
            case 3?:
                guard readString(&text, nonEmpty: true) else { return nil }
                if let text {
                    guard let priority = DeliveryPriority(rawValue: text) else { return nil }
                    options.priority = priority
                }
            default: return nil
            }
        }
        return ended ? options : nil
    }

    // MARK: members

    /// A string or null (nil), as `ObjectReader.optionalString` reads it.
    mutating func readString(_ value: inout String?, nonEmpty: Bool, maxBytes: Int = .max) -> Bool {
        if scanner.null() {
            value = nil
            return true
        }
        guard let text = scanner.string(), !(nonEmpty && text.isEmpty), text.utf8.count <= maxBytes else { return false }
        value = text
        return true
    }

    /// An id or null, as `ObjectReader.optionalIdentifier` reads it.
    mutating func readIdentifier(_ value: inout String?) -> Bool {
        guard readString(&value, nonEmpty: true, maxBytes: limits.maximumIDBytes) else { return false }
        guard let id = value else { return true }
        return ObjectReader.identifierProblem(id) == nil
    }

    /// The index of `key` in `names`, marked in `seen`; nil when unknown or seen already.
    func field(_ key: UnsafeBufferPointer<UInt8>, _ names: [KeyName], seen: inout UInt32) -> Int? {
        guard let key = KeyName(key, in: scanner.input), let index = names.firstIndex(of: key) else { return nil }
        let bit: UInt32 = 1 << index
        guard seen & bit == 0 else { return nil }
        seen |= bit
        return index
    }
}
