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
    /// A browser reached through FCM with a web registration token: FCM v1's
    /// `webpush` block instead of `android` and `apns`.
    case fcmWeb = "fcm_web"
    /// A browser's push subscription, reached directly (RFC 8030): its
    /// endpoint and keys (`Recipient.webPushKeys`).
    case webpush

    /// The platform whose provider client sends this one's requests: FCM for
    /// `fcm_web` (the same project, credentials and connections), else itself.
    public var deliveredBy: Platform { self == .fcmWeb ? .fcm : self }
}

/// One device to notify.
public struct Recipient: Sendable, Equatable {
    public var platform: Platform
    /// The device's address at its provider: the registration token, or for
    /// `webpush` the subscription's endpoint URL (what results, `rejected`
    /// and the dedup record name it by).
    public var token: String
    public var badge: Int?
    /// The recipient's language tag; only its primary subtag is used.
    public var locale: String?
    /// The recipient's user id, for the self-notification rule.
    public var userID: String?
    /// A `webpush` subscription's keys; nil for every other platform.
    public var webPushKeys: WebPushKeys?

    public init(platform: Platform, token: String, badge: Int? = nil, locale: String? = nil, userID: String? = nil,
                webPushKeys: WebPushKeys? = nil) {
        self.platform = platform
        self.token = token
        self.badge = badge
        self.locale = locale
        self.userID = userID
        self.webPushKeys = webPushKeys
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
