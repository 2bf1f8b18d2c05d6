/// Reads an event straight from the bytes in one pass with `JSONScanner`:
/// members in document order, each value checked by its rule of API.md as
/// it is read, and the first problem thrown as an `EventError` naming its
/// field. Unknown keys are refused by name rather than ignored, so a
/// misspelt optional field (`"notifcation"`) is reported instead of
/// silently doing nothing; a key written twice is refused as RFC 8259 §8.3
/// allows (two readers taking different copies is how smuggling starts).
///
/// The rules that depend on the app (its credentials per platform, the
/// data keys it writes itself) are `EventDecoder`'s: the app may be named
/// after the members they apply to. Strings are checked on their bytes
/// (`JSONScanner.Text`) before a `String` is made, and written into the
/// event in place.
struct EventReader {
    typealias KeyName = JSONScanner.KeyName
    typealias Text = JSONScanner.Text

    var scanner: JSONScanner
    let limits: EventLimits
    /// The ids of the conversation and the message, for the default event id.
    private var conversationID: Text?
    private var messageID: Text?

    init(_ scanner: JSONScanner, limits: EventLimits) {
        self.scanner = scanner
        self.limits = limits
    }

    /// An event with nothing in it, for `read(into:)` to fill (made once:
    /// made each time, it was built and then copied).
    static let emptyEvent = Event(eventID: "", conversation: Conversation(id: ""), message: Message(id: ""),
                                  sender: Sender(id: "", displayName: ""), recipients: [])

    /// The event the whole body holds, checked as far as it can be without the app.
    mutating func read() throws(EventError) -> Event {
        // Filled in place and moved out.
        var event = Self.emptyEvent
        try read(into: &event)
        return event
    }

    /// Reads the whole body into `event` (made by `emptyEvent`), checked as
    /// far as it can be without the app. Its `eventID` is
    /// `conversation.id + ":" + message.id` when the body has none.
    private mutating func read(into event: inout Event) throws(EventError) {
        let root = Place.root
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: root, null: .refused, "must be an object")
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: root) {
            switch try member(key, of: .event, seen: &seen, at: root) {
            case 0:
                if let id = try identifier("event_id", at: root) { event.eventID = id.string }
            case 1: event.app = try text("app", at: root, nonEmpty: true)?.string
            case 2: try readConversation(into: &event.conversation, at: .conversation)
            case 3: try readMessage(into: &event.message, at: .message)
            case 4: try readSender(into: &event.sender, at: .sender)
            case 5: try readRecipients(into: &event.recipients, at: .recipients)
            case 6: try readNotification(into: &event.notification, at: .notification)
            default: try readData(into: &event.data, at: .data)
            }
        }
        try requireMembers(seen, 0b11_1100, of: .event, at: root)
        try scan(root) { scanner throws(JSONScanner.Failure) in try scanner.end() }
        // No event id, or null (a given one is never empty).
        if event.eventID.isEmpty, let conversationID, let messageID {
            event.eventID = Text.joined(conversationID, UInt8(ascii: ":"), messageID)
        }
    }

    // MARK: objects

    private mutating func readConversation(into conversation: inout Conversation, at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: location, null: .required, "must be an object")
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .conversation, seen: &seen, at: location) {
            case 0:
                let id = try requiredIdentifier("id", at: location)
                conversation.id = id.string
                conversationID = id
            default:
                if let title = try text("title", at: location, maxLength: 1024), !title.isBlank { conversation.title = title.string }
            }
        }
        try requireMembers(seen, 0b1, of: .conversation, at: location)
    }

    private mutating func readMessage(into message: inout Message, at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: location, null: .required, "must be an object")
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .message, seen: &seen, at: location) {
            case 0:
                let id = try requiredIdentifier("id", at: location)
                message.id = id.string
                messageID = id
            case 1:
                // Else the "" it holds.
                if let text = try text("text", at: location), text.utf8Count > 0 { message.text = text.string }
            case 2:
                guard let name = try text("kind", at: location, nonEmpty: true) else { break }
                guard let kind = name.parsed(MessageKind.init(utf8:)) else {
                    let kinds = MessageKind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw Self.invalid(location, "kind", "unknown kind \"\(name.string)\"; use one of \(kinds)")
                }
                message.kind = kind
            default:
                if let flag = try bool("rich_text", at: location) { message.richText = flag }
            }
        }
        try requireMembers(seen, 0b1, of: .message, at: location)
    }

    private mutating func readSender(into sender: inout Sender, at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        _ = try enter(.object, &object, at: location, null: .required, "must be an object")
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .sender, seen: &seen, at: location) {
            case 0:
                sender.id = try requiredIdentifier("id", at: location).string
            case 1:
                guard let name = try text("display_name", at: location, nonEmpty: true, maxLength: 1024) else {
                    throw Self.invalid(location, "display_name", "is required")
                }
                guard !name.isBlank else { throw Self.invalid(location, "display_name", "must not be blank (only whitespace)") }
                sender.displayName = name.string
            default:
                // An empty URL is no URL.
                guard let url = try text("avatar_url", at: location, maxLength: limits.maximumURLBytes), url.utf8Count > 0 else { break }
                guard url.isAbsoluteURL else { throw Self.invalid(location, "avatar_url", "must be an absolute http or https URL") }
                sender.avatarURL = url.string
            }
        }
        try requireMembers(seen, 0b11, of: .sender, at: location)
    }

    private mutating func readNotification(into options: inout NotificationOptions, at location: Place) throws(EventError) {
        var object = JSONScanner.Container()
        guard try enter(.object, &object, at: location, null: .absent, "must be an object") else { return }
        var seen: UInt32 = 0
        while let key = try nextKey(&object, at: location) {
            switch try member(key, of: .notification, seen: &seen, at: location) {
            case 0:
                if let title = try text("title", at: location, maxLength: 1024), !title.isBlank { options.title = title.string }
            case 1:
                // Null or empty: silence.
                let sound = try text("sound", at: location, maxLength: 256)
                options.sound = sound.flatMap { $0.utf8Count > 0 ? $0.string : nil }
            case 2:
                guard let ttl = try integer("ttl_seconds", at: location) else { break }
                guard (0...Int64(NotificationOptions.maximumTTLSeconds)).contains(ttl) else {
                    throw Self.invalid(location, "ttl_seconds",
                                       "must be between 0 and \(NotificationOptions.maximumTTLSeconds) (four weeks)")
                }
                options.ttlSeconds = Int(ttl)
            default:
                guard let name = try text("priority", at: location, nonEmpty: true) else { break }
                guard let priority = name.parsed(DeliveryPriority.init(utf8:)) else {
                    throw Self.invalid(location, "priority", "must be \"high\" or \"normal\"")
                }
                options.priority = priority
            }
        }
    }
}
