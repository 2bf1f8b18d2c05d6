/// Turns a request body into a validated `Event`, enforcing every rule of
/// API.md and naming the field of the first rule broken.
///
/// Unknown keys are refused rather than ignored, so a misspelt optional field
/// (`"notifcation"`) is reported instead of silently doing nothing.
public struct EventDecoder: Sendable {
    public let config: RenderConfig

    public init(config: RenderConfig) {
        self.config = config
    }

    /// Decodes and validates `body`; also resolves the app the event is for.
    public func decode(_ body: [UInt8]) throws(EventError) -> (event: Event, app: AppProfile) {
        let (event, appIndex) = try decodeIndexed(body)
        return (event, config.apps[appIndex])
    }

    /// `decode(_:)`, with the app as its index in `config.apps`: the fast
    /// path checks the app's profile where it is, and only a caller that
    /// needs its own copies it out (`EventRenderer.renderReport(_:appIndex:…)`
    /// reads it in place: a copy retained and released every string in it).
    public func decodeIndexed(_ body: [UInt8]) throws(EventError) -> (event: Event, appIndex: Int) {
        if body.count > config.limits.maximumBodyBytes {
            throw EventError(.bodyTooLarge, field: nil,
                             "the body is \(body.count) bytes; at most \(config.limits.maximumBodyBytes) are accepted")
        }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw EventError(.emptyBody, field: nil, "the request body is empty: send one event as a JSON object")
        }
        // The usual valid event, straight from the bytes; anything else (every
        // error included) is read by the tree decoder below, unchanged.
        if let decoded = decodeFastIndexed(body) { return decoded }
        let document = try JSONParser.parse(body)
        let event = try decode(document).event
        // The app `decode(document)` resolved from the same name.
        return (event, try config.appIndex(named: event.app))
    }

    /// Validates an already-parsed document.
    public func decode(_ document: JSONValue) throws(EventError) -> (event: Event, app: AppProfile) {
        let root = try ObjectReader(document, at: FieldLocation(), allowed: Keys.event)
        let appName = try root.optionalString("app", nonEmpty: true)
        let app = try config.app(named: appName)
        let conversation = try decodeConversation(root.requiredObject("conversation", allowed: Keys.conversation))
        let message = try decodeMessage(root.requiredObject("message", allowed: Keys.message))
        let sender = try decodeSender(root.requiredObject("sender", allowed: Keys.sender))
        let eventID = try root.optionalIdentifier("event_id", maxBytes: config.limits.maximumIDBytes)
            ?? "\(conversation.id):\(message.id)"
        let notification = try decodeNotification(root.optionalObject("notification", allowed: Keys.notification))
        let data = try decodeData(root.optionalValue("data"), at: root.location.child("data"), app: app)
        let recipients = try decodeRecipients(root.requiredValue("recipients"), at: root.location.child("recipients"), app: app)
        let event = Event(eventID: eventID, app: appName, conversation: conversation, message: message, sender: sender,
                          recipients: recipients, notification: notification, data: data)
        return (event, app)
    }

    // MARK: parts

    private func decodeConversation(_ object: ObjectReader) throws(EventError) -> Conversation {
        let id = try object.requiredIdentifier("id", maxBytes: config.limits.maximumIDBytes)
        let title = try object.optionalString("title", nonEmpty: false, maxBytes: 1024)
        return Conversation(id: id, title: title?.isBlank == true ? nil : title)
    }

    private func decodeMessage(_ object: ObjectReader) throws(EventError) -> Message {
        let id = try object.requiredIdentifier("id", maxBytes: config.limits.maximumIDBytes)
        let text = try object.optionalString("text", nonEmpty: false) ?? ""
        var kind = MessageKind.text
        if let kindName = try object.optionalString("kind", nonEmpty: true) {
            guard let known = MessageKind(rawValue: kindName) else {
                let kinds = MessageKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw EventError(.invalidEvent, at: object.path.appending("kind"),
                                 "unknown kind \"\(kindName)\"; use one of \(kinds)")
            }
            kind = known
        }
        let richText = try object.optionalBool("rich_text") ?? false
        return Message(id: id, text: text, kind: kind, richText: richText)
    }

    private func decodeSender(_ object: ObjectReader) throws(EventError) -> Sender {
        let id = try object.requiredIdentifier("id", maxBytes: config.limits.maximumIDBytes)
        let displayName = try object.requiredString("display_name", maxBytes: 1024)
        if displayName.isBlank {
            throw EventError(.invalidEvent, at: object.path.appending("display_name"), "must not be blank (only whitespace)")
        }
        let avatar = try object.optionalString("avatar_url", nonEmpty: false, maxBytes: config.limits.maximumURLBytes)
        if let avatar, !avatar.isEmpty, !HTTPURL.isAbsolute(avatar) {
            throw EventError(.invalidEvent, at: object.path.appending("avatar_url"),
                             "must be an absolute http or https URL")
        }
        return Sender(id: id, displayName: displayName, avatarURL: avatar?.isEmpty == true ? nil : avatar)
    }

    private func decodeNotification(_ object: ObjectReader?) throws(EventError) -> NotificationOptions {
        var options = NotificationOptions()
        guard let object else { return options }
        if let title = try object.optionalString("title", nonEmpty: false, maxBytes: 1024), !title.isBlank {
            options.title = title
        }
        if object.has("sound") {
            let sound = try object.optionalString("sound", nonEmpty: false, maxBytes: 256)
            options.sound = sound?.isEmpty == true ? nil : sound
        }
        if let ttl = try object.optionalInteger("ttl_seconds") {
            guard (0...Int64(NotificationOptions.maximumTTLSeconds)).contains(ttl) else {
                throw EventError(.invalidEvent, at: object.path.appending("ttl_seconds"),
                                 "must be between 0 and \(NotificationOptions.maximumTTLSeconds) (four weeks)")
            }
            options.ttlSeconds = Int(ttl)
        }
        if let priority = try object.optionalString("priority", nonEmpty: true) {
            guard let known = DeliveryPriority(rawValue: priority) else {
                throw EventError(.invalidEvent, at: object.path.appending("priority"), "must be \"high\" or \"normal\"")
            }
            options.priority = known
        }
        return options
    }

    private func decodeData(_ value: JSONValue?, at location: FieldLocation, app: AppProfile) throws(EventError) -> [DataEntry] {
        guard let value, value != .null else { return [] }
        let path = location.path
        guard case let .object(members) = value else {
            throw EventError(.invalidEvent, at: path, "must be an object of string values, not \(value.typeName)")
        }
        var entries: [DataEntry] = []
        entries.reserveCapacity(members.count)
        for (key, member) in members {
            if let problem = DataKeyNames.problem(with: key) {
                throw EventError(.invalidEvent, at: path.appending(key), problem)
            }
            if app.dataKeys.isGatewayKey(key) {
                throw EventError(.invalidEvent, at: path.appending(key), "\"\(key)\" is set by the gateway itself; use another key")
            }
            guard case let .string(text) = member else {
                throw EventError(.invalidEvent, at: path.appending(key), "data values must be strings, not \(member.typeName)")
            }
            entries.append(DataEntry(key, text))
        }
        return entries
    }

    private func decodeRecipients(_ value: JSONValue, at location: FieldLocation, app: AppProfile) throws(EventError) -> [Recipient] {
        guard case let .array(items) = value else {
            throw EventError(.invalidEvent, at: location.path, "must be an array of recipients, not \(value.typeName)")
        }
        guard !items.isEmpty else { throw EventError(.invalidEvent, at: location.path, "name at least one recipient") }
        guard items.count <= config.limits.maximumRecipients else {
            throw EventError(.tooManyRecipients, at: location.path,
                             "\(items.count) recipients; at most \(config.limits.maximumRecipients) per event")
        }
        var recipients: [Recipient] = []
        recipients.reserveCapacity(items.count)
        var seenTokens = SeenTokens(expected: items.count)
        for (index, item) in items.enumerated() {
            let object = try ObjectReader(item, at: location.child(index: index), allowed: Keys.recipient)
            let platformName = try object.requiredString("platform")
            guard let platform = Platform(rawValue: platformName) else {
                throw EventError(.invalidEvent, at: object.path.appending("platform"), "must be \"fcm\" or \"apns\"")
            }
            switch platform {
            case .apns where app.apns == nil, .fcm where app.fcm == nil:
                throw EventError(.invalidEvent, at: object.path.appending("platform"),
                                 "the app \"\(app.name)\" has no \(platform.rawValue) credentials configured")
            default: break
            }
            let token = try object.requiredString("token")
            if let problem = DeviceToken.problem(with: token, platform: platform) {
                throw EventError(.invalidEvent, at: object.path.appending("token"), problem)
            }
            if let first = seenTokens.insert(token, platform: platform, index: index) {
                throw EventError(.invalidEvent, at: object.path.appending("token"),
                                 "the same token as recipients[\(first)]; name each device once")
            }
            var badge: Int?
            if let number = try object.optionalInteger("badge") {
                guard (0...Int64(Int32.max)).contains(number) else {
                    throw EventError(.invalidEvent, at: object.path.appending("badge"), "must be between 0 and \(Int32.max)")
                }
                badge = Int(number)
            }
            let locale = try object.optionalString("locale", nonEmpty: true, maxBytes: 35)
            let userID = try object.optionalIdentifier("user_id", maxBytes: config.limits.maximumIDBytes)
            recipients.append(Recipient(platform: platform, token: token, badge: badge, locale: locale, userID: userID))
        }
        return recipients
    }

    /// The members each object of the event may have.
    private enum Keys {
        static let event: [String] = ["event_id", "app", "conversation", "message", "sender", "recipients", "notification", "data"]
        static let conversation: [String] = ["id", "title"]
        static let message: [String] = ["id", "text", "kind", "rich_text"]
        static let sender: [String] = ["id", "display_name", "avatar_url"]
        static let notification: [String] = ["title", "sound", "ttl_seconds", "priority"]
        static let recipient: [String] = ["platform", "token", "badge", "locale", "user_id"]
    }
}
