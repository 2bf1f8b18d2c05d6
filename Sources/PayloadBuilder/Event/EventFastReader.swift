/// The walk of `EventDecoder`'s fast path: reads the usual valid event
/// straight from the bytes with `JSONScanner`, checking every rule that does
/// not depend on the app, and answers false for anything it does not fully
/// handle (any broken rule, a member of another type, an unknown or
/// repeated key, a key with an escape, a number it does not read), so that
/// the tree decoder reads the body and words the error.
///
/// Every check applies the rule the tree decoder applies (`ObjectReader`,
/// `DeviceToken`, `HTTPURL`, `isBlank`, the enums' raw values), to the same
/// strings; most of them on the string's bytes, before a `String` is made.
/// Values are written into the event in place as they are read.
struct EventFastReader {
    var scanner: JSONScanner
    let limits: EventLimits
    /// The ids of the conversation and the message, for the default event id.
    private var conversationID: JSONScanner.Text?
    private var messageID: JSONScanner.Text?

    /// The members each object may have, as `EventDecoder.Keys` lists them:
    /// each name's index (its bit in `seen`), or nil for another key.
    enum Names {
        static func event(_ key: KeyName) -> Int? {
            switch key {
            case "event_id": 0
            case "app": 1
            case "conversation": 2
            case "message": 3
            case "sender": 4
            case "recipients": 5
            case "notification": 6
            case "data": 7
            default: nil
            }
        }

        static func conversation(_ key: KeyName) -> Int? {
            switch key {
            case "id": 0
            case "title": 1
            default: nil
            }
        }

        static func message(_ key: KeyName) -> Int? {
            switch key {
            case "id": 0
            case "text": 1
            case "kind": 2
            case "rich_text": 3
            default: nil
            }
        }

        static func sender(_ key: KeyName) -> Int? {
            switch key {
            case "id": 0
            case "display_name": 1
            case "avatar_url": 2
            default: nil
            }
        }

        static func notification(_ key: KeyName) -> Int? {
            switch key {
            case "title": 0
            case "sound": 1
            case "ttl_seconds": 2
            case "priority": 3
            default: nil
            }
        }

        static func recipient(_ key: KeyName) -> Int? {
            switch key {
            case "platform": 0
            case "token": 1
            case "badge": 2
            case "locale": 3
            case "user_id": 4
            default: nil
            }
        }
    }

    /// Most data members read here; an event with more is left to the tree
    /// decoder (the duplicate-key check is a linear scan).
    static let maximumDataMembers = 32

    init(_ input: UnsafeBufferPointer<UInt8>, limits: EventLimits) {
        scanner = JSONScanner(input)
        self.limits = limits
    }

    /// An event with nothing in it, for `read(into:)` to fill (made once:
    /// made each time, it was built and then copied).
    static let emptyEvent = Event(eventID: "", conversation: Conversation(id: ""), message: Message(id: ""),
                                  sender: Sender(id: "", displayName: ""), recipients: [])

    /// Reads the event into `event` (made by `emptyEvent`), checked as far
    /// as it can be without the app; false when the tree decoder must read
    /// the body. Its `eventID` is `conversation.id + ":" + message.id`
    /// when the body has none.
    mutating func read(into event: inout Event) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.event, seen: &seen) {
            case 0?:
                guard let id = identifierOrNull() else { return false }
                if let id { event.eventID = id.string }
            case 1?:
                guard let app = textOrNull(nonEmpty: true) else { return false }
                event.app = app?.string
            case 2?: guard readConversation(into: &event.conversation) else { return false }
            case 3?: guard readMessage(into: &event.message) else { return false }
            case 4?: guard readSender(into: &event.sender) else { return false }
            case 5?: guard readRecipients(into: &event.recipients) else { return false }
            case 6?: guard scanner.null() || readNotification(into: &event.notification) else { return false }
            case 7?: guard scanner.null() || readData(into: &event.data) else { return false }
            default: return false
            }
        }
        // conversation, message, sender and recipients were there (and not null: they were read).
        let required: UInt32 = 0b11_1100
        guard ended, seen & required == required, scanner.atEnd(), let conversationID, let messageID else { return false }
        // No event id, or null (a given one is never empty).
        if event.eventID.isEmpty { event.eventID = Self.joined(conversationID, messageID) }
        return true
    }

    /// `a + ":" + b`, copied once from the input (no `String` read first).
    /// Both are identifiers, never empty, so both have bytes to copy.
    private static func joined(_ a: JSONScanner.Text, _ b: JSONScanner.Text) -> String {
        let count = a.utf8Count + 1 + b.utf8Count
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let out = buffer.baseAddress, let first = a.utf8.baseAddress, let second = b.utf8.baseAddress else {
                preconditionFailure("an identifier without bytes")
            }
            out.update(from: first, count: a.utf8Count)
            out[a.utf8Count] = UInt8(ascii: ":")
            (out + a.utf8Count + 1).update(from: second, count: b.utf8Count)
            return count
        }
    }

    // MARK: objects

    private mutating func readConversation(into conversation: inout Conversation) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.conversation, seen: &seen) {
            case 0?:
                guard let id = identifierOrNull(), let id else { return false }
                conversation.id = id.string
                conversationID = id
            case 1?:
                guard let title = textOrNull(nonEmpty: false, maxBytes: 1024) else { return false }
                if let title, !title.isBlank { conversation.title = title.string }
            default: return false
            }
        }
        return ended && seen & 0b1 != 0
    }

    private mutating func readMessage(into message: inout Message) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.message, seen: &seen) {
            case 0?:
                guard let id = identifierOrNull(), let id else { return false }
                message.id = id.string
                messageID = id
            case 1?:
                guard let text = textOrNull(nonEmpty: false) else { return false }
                if let text, text.utf8Count > 0 { message.text = text.string }  // else the "" it holds
            case 2?:
                guard let name = textOrNull(nonEmpty: true) else { return false }
                if let name {
                    guard let kind = name.withUTF8({ MessageKind(utf8: $0) }) else { return false }
                    message.kind = kind
                }
            case 3?:
                if !scanner.null() {
                    guard let flag = scanner.bool() else { return false }
                    message.richText = flag
                }
            default: return false
            }
        }
        return ended && seen & 0b1 != 0
    }

    private mutating func readSender(into sender: inout Sender) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.sender, seen: &seen) {
            case 0?:
                guard let id = identifierOrNull(), let id else { return false }
                sender.id = id.string
            case 1?:
                guard let name = textOrNull(nonEmpty: true, maxBytes: 1024), let name, !name.isBlank else { return false }
                sender.displayName = name.string
            case 2?:
                guard let url = textOrNull(nonEmpty: false, maxBytes: limits.maximumURLBytes) else { return false }
                // An empty URL is no URL.
                if let url, url.utf8Count > 0 {
                    guard url.isAbsoluteURL else { return false }
                    sender.avatarURL = url.string
                }
            default: return false
            }
        }
        return ended && seen & 0b11 == 0b11
    }

    private mutating func readNotification(into options: inout NotificationOptions) -> Bool {
        var object = JSONScanner.Container()
        guard scanner.enter(UInt8(ascii: "{"), &object) else { return false }
        var seen: UInt32 = 0, ended = false
        while let key = scanner.nextKeyName(&object, ended: &ended) {
            switch field(key, Names.notification, seen: &seen) {
            case 0?:
                guard let title = textOrNull(nonEmpty: false, maxBytes: 1024) else { return false }
                if let title, !title.isBlank { options.title = title.string }
            case 1?:
                guard let sound = textOrNull(nonEmpty: false, maxBytes: 256) else { return false }
                // Null or empty: silence.
                options.sound = sound.flatMap { $0.utf8Count > 0 ? $0.string : nil }
            case 2?:
                if !scanner.null() {
                    guard let ttl = scanner.integer(), (0...Int64(NotificationOptions.maximumTTLSeconds)).contains(ttl)
                    else { return false }
                    options.ttlSeconds = Int(ttl)
                }
            case 3?:
                guard let name = textOrNull(nonEmpty: true) else { return false }
                if let name {
                    guard let priority = name.withUTF8({ DeliveryPriority(utf8: $0) }) else { return false }
                    options.priority = priority
                }
            default: return false
            }
        }
        return ended
    }

    // MARK: members

    /// A string (checked as `ObjectReader.optionalString` checks it) or
    /// null: the string, `.some(nil)` for null, nil to step aside.
    mutating func textOrNull(nonEmpty: Bool, maxBytes: Int = .max) -> JSONScanner.Text?? {
        guard let member = scanner.textOrNull() else { return nil }
        guard let text = member else { return .some(nil) }
        let count = text.utf8Count
        guard !(nonEmpty && count == 0), count <= maxBytes else { return nil }
        return .some(text)
    }

    /// An id (checked as `ObjectReader.optionalIdentifier` checks it) or
    /// null: the id, `.some(nil)` for null, nil to step aside.
    mutating func identifierOrNull() -> JSONScanner.Text?? {
        guard let member = textOrNull(nonEmpty: true, maxBytes: limits.maximumIDBytes) else { return nil }
        guard let text = member else { return .some(nil) }
        return text.isIdentifier ? .some(text) : nil
    }

    /// The index `names` gives `key`, marked in `seen`; nil when unknown or seen already.
    @inline(__always)
    func field(_ key: KeyName, _ names: (KeyName) -> Int?, seen: inout UInt32) -> Int? {
        guard let index = names(key) else { return nil }
        let bit: UInt32 = 1 << index
        guard seen & bit == 0 else { return nil }
        seen |= bit
        return index
    }
}
