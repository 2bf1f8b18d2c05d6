/// One normalized "new message" event, validated: what a relay or a Cloud
/// Function POSTs to `/v1/notify` and `/v1/render` (API.md, "The event").
///
/// Values here have passed every rule of the contract; build one with
/// `EventDecoder`, which names the field of the first rule broken.
public struct Event: Sendable, Equatable {
    /// The idempotency key: as given, or `conversation.id + ":" + message.id`.
    public var eventID: String
    /// The configured app the event names, or nil for the only one.
    public var app: String?
    public var conversation: Conversation
    public var message: Message
    public var sender: Sender
    public var recipients: [Recipient]
    public var notification: NotificationOptions
    /// The caller's extra data keys, in the order written; values are strings.
    public var data: [DataEntry]

    public init(
        eventID: String, app: String? = nil, conversation: Conversation, message: Message, sender: Sender,
        recipients: [Recipient], notification: NotificationOptions = NotificationOptions(), data: [DataEntry] = []
    ) {
        self.eventID = eventID
        self.app = app
        self.conversation = conversation
        self.message = message
        self.sender = sender
        self.recipients = recipients
        self.notification = notification
        self.data = data
    }
}

/// The chat a message belongs to; a title makes it a group or channel.
public struct Conversation: Sendable, Equatable {
    public var id: String
    /// Non-empty when the conversation is a group or channel.
    public var title: String?

    public init(id: String, title: String? = nil) {
        self.id = id
        self.title = title
    }
}

/// The message that was written.
public struct Message: Sendable, Equatable {
    public var id: String
    /// The text as written: markup when `richText` is true.
    public var text: String
    public var kind: MessageKind
    public var richText: Bool

    public init(id: String, text: String = "", kind: MessageKind = .text, richText: Bool = false) {
        self.id = id
        self.text = text
        self.kind = kind
        self.richText = richText
    }
}

/// What a message carries. Closed: the contract answers an unknown kind with 400.
public enum MessageKind: String, Sendable, CaseIterable {
    case text, image, video, audio, file, sticker, location
}

/// Who wrote the message.
public struct Sender: Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// An absolute http(s) URL, checked by the avatar resolver before use.
    public var avatarURL: String?

    public init(id: String, displayName: String, avatarURL: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.avatarURL = avatarURL
    }
}

/// The push service a device token belongs to.
public enum Platform: String, Sendable, CaseIterable {
    case fcm, apns
}

/// One device to notify.
public struct Recipient: Sendable, Equatable {
    public var platform: Platform
    public var token: String
    public var badge: Int?
    /// The recipient's language tag; only its primary subtag is used.
    public var locale: String?
    /// The recipient's user id, for the self-notification rule.
    public var userID: String?

    public init(platform: Platform, token: String, badge: Int? = nil, locale: String? = nil, userID: String? = nil) {
        self.platform = platform
        self.token = token
        self.badge = badge
        self.locale = locale
        self.userID = userID
    }
}

/// How urgently a notification is delivered.
public enum DeliveryPriority: String, Sendable {
    /// Delivered at once (`apns-priority: 10`, Android `high`).
    case high
    /// Power-aware delivery (`apns-priority: 5`, Android `normal`).
    case normal
}

/// Presentation and delivery options of the event.
public struct NotificationOptions: Sendable, Equatable {
    /// Overrides the computed title when set.
    public var title: String?
    /// A sound name, `"default"`, or nil for silence.
    public var sound: String?
    public var ttlSeconds: Int
    public var priority: DeliveryPriority

    public static let defaultTTLSeconds = 86_400
    /// FCM's and APNs' longest storage: four weeks.
    public static let maximumTTLSeconds = 2_419_200

    public init(title: String? = nil, sound: String? = "default", ttlSeconds: Int = defaultTTLSeconds,
                priority: DeliveryPriority = .high) {
        self.title = title
        self.sound = sound
        self.ttlSeconds = ttlSeconds
        self.priority = priority
    }
}

/// One of the caller's extra data keys and its string value.
public struct DataEntry: Sendable, Equatable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}
