/// What FCM counts against its size limits, per platform it may deliver to
/// (PROTOCOLS.md B2, B3, A3); a token names one device but the simulator
/// cannot tell which platform, so every platform's payload must fit:
///
/// - Android: the data (`android.data`, which replaces `message.data` when
///   set) plus the notification texts `title`, `body`, `image`, each taken
///   from `android.notification` when set there, else from
///   `message.notification`. Limit 4096, 2048 for topic and condition
///   messages.
/// - Web push: the data (`webpush.data`, which replaces `message.data` when
///   set) plus the `message.notification` texts. Same limit.
/// - The message itself: `message.data` plus the `message.notification`
///   texts. Same limit.
/// - APNs, for a message with an `apns.payload` (one meant for iOS too):
///   what FCM delivers to an iOS device, against APNs' own 4096 (A3),
///   whatever the target: `apns.payload` as compact JSON, plus
///   `message.data`'s keys and values (top-level keys there) and the
///   notification's title and body (`aps.alert`), plus
///   `apnsDeliveryOverhead` for their JSON around them. FCM's own keys
///   (`gcm.message_id`, `google.c.*`) are not counted: their size is not
///   documented, so the simulator does not refuse on a guess. (Without an
///   `apns.payload` the message may well be for Android alone, whose data
///   may take the whole 4096.)
///
/// Data counts keys and values, in UTF-8 bytes ("keys and values both
/// count"). An empty string or an empty map is unset, as in proto3, so it
/// replaces nothing. Over a limit is "Message is too big" (INVALID_ARGUMENT).
struct FCMMessageSize: Equatable {
    /// The three counted notification texts, in UTF-8 bytes (0 when unset).
    struct Texts: Equatable {
        var title = 0
        var body = 0
        var image = 0

        var total: Int { title + body + image }

        /// `self`'s texts where set, else `fallback`'s.
        func over(_ fallback: Texts) -> Texts {
            Texts(title: title > 0 ? title : fallback.title, body: body > 0 ? body : fallback.body,
                  image: image > 0 ? image : fallback.image)
        }

        /// Sets the text `role` names (title, body, image) to `count` bytes.
        mutating func set(_ count: Int, for role: FCMScanTable.Role) {
            switch role {
            case .title: title = count
            case .body: body = count
            case .image: image = count
            default: break
            }
        }
    }

    /// A part of the message with a limit of its own.
    enum Part: String {
        case message, android, webpush, apns
    }

    static let apnsPayloadLimit = 4096
    /// `"alert":{"title":"","body":""}` and a little of the data's JSON
    /// punctuation: a lower bound of what FCM writes around the counted bytes.
    static let apnsDeliveryOverhead = 64

    var messageData = 0
    /// `android.data`, `nil` when unset or empty.
    var androidData: Int?
    /// `webpush.data`, `nil` when unset or empty.
    var webpushData: Int?
    var notification = Texts()
    var androidNotification = Texts()
    /// The compact `apns.payload`, `nil` when unset.
    var apnsPayload: Int?

    /// The first part over its limit (`dataLimit` for all but APNs), in
    /// the order message, Android, web push, APNs.
    func oversizedPart(dataLimit: Int) -> (part: Part, bytes: Int, limit: Int)? {
        let parts: [(Part, Int, Int)] = [
            (.message, messageData + notification.total, dataLimit),
            (.android, (androidData ?? messageData) + androidNotification.over(notification).total, dataLimit),
            (.webpush, (webpushData ?? messageData) + notification.total, dataLimit),
            (.apns, apnsPayload.map { $0 + messageData + notification.title + notification.body + Self.apnsDeliveryOverhead } ?? 0,
             Self.apnsPayloadLimit),
        ]
        return parts.first { $0.1 > $0.2 }.map { (part: $0.0, bytes: $0.1, limit: $0.2) }
    }

    /// Nothing counted yet (`FCMSendScanner` notes sizes as it reads).
    init() {}

    /// The description of Google's field violation for `part`.
    static func description(_ part: Part, bytes: Int, limit: Int) -> String {
        switch part {
        case .message: "Message is too big: data and notification exceed \(limit) bytes."
        case .android: "Message is too big: the Android payload (data and notification) has \(bytes) bytes, over \(limit)."
        case .webpush: "Message is too big: the web push payload (data and notification) has \(bytes) bytes, over \(limit)."
        case .apns: "Message is too big: the APNs payload (apns.payload with the data and notification) has \(bytes) bytes, over \(limit)."
        }
    }
}
