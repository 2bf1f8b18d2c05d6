/// What FCM's own checks (`FCMMessageValidator`) need from a message,
/// collected by `FCMSendScanner` while it reads the body.
///
/// Each fact belongs to one field; when that field is written again (or
/// `null`), `clear` forgets what its earlier value said, so the last value
/// written counts.
struct FCMMessageFacts {
    /// `message` is set (an object).
    var hasMessage = false
    /// `message.android` and `message.androidV2` are set (not null).
    var hasAndroid = false
    var hasAndroidV2 = false
    var validateOnly = false
    /// The targets; an empty string is unset, as in proto3.
    var token: String?
    var topic: String?
    var condition: String?
    var fid: String?
    /// The first reserved key of `message.data`, `android.data` and
    /// `webpush.data`, as written.
    var reservedDataKey: String?
    var reservedAndroidDataKey: String?
    var reservedWebpushDataKey: String?
    /// `android.ttl`, when it is negative or over 4 weeks.
    var refusedTTL: String?
    /// `android.notification.color`, when it is not `#rrggbb`.
    var refusedColor: String?
    /// `webpush.fcmOptions.link`, when it is not an HTTPS URL.
    var refusedLink: String?
    /// `apns.payload` is set; whether it holds an `aps` object.
    var hasAPNsPayload = false
    var hasAPSObject = false
    /// The facts of `apns.payload.aps`.
    var aps = APNsPayloadShape.APSFacts()
    /// Where `apns.payload` is written in the body, when its written size
    /// is not known to bound its compact size (`FCMMessageSize.apnsPayload`).
    var inexactAPNsPayload: Range<Int>?
    /// What FCM counts against its limits.
    var size = FCMMessageSize()
    /// `apns.headers`, as far as APNs' rules read them.
    var apnsHeaders = FCMAPNsHeaders()

    /// Forgets what the field `role` names in an object at `place` said.
    mutating func clear(_ role: FCMScanTable.Role, at place: FCMSendScanner.Place) {
        switch (place, role) {
        case (.root, .message):
            let keep = validateOnly
            self = FCMMessageFacts()
            validateOnly = keep
        case (.root, .validateOnly): validateOnly = false
        case (.message, .token): token = nil
        case (.message, .topic): topic = nil
        case (.message, .condition): condition = nil
        case (.message, .fid): fid = nil
        case (.message, .data): clearData(at: .message)
        case (.message, .notification): size.notification = .init()
        case (.message, .android):
            hasAndroid = false
            clearData(at: .android)
            refusedTTL = nil
            refusedColor = nil
            size.androidNotification = .init()
        case (.message, .androidV2): hasAndroidV2 = false
        case (.message, .webpush):
            clearData(at: .webpush)
            refusedLink = nil
        case (.message, .apns):
            apnsHeaders = FCMAPNsHeaders()
            clearPayload()
        case (.notification, _): size.notification.set(0, for: role)
        case (.android, .data): clearData(at: .android)
        case (.android, .ttl): refusedTTL = nil
        case (.android, .notification):
            refusedColor = nil
            size.androidNotification = .init()
        case (.androidNotification, .color): refusedColor = nil
        case (.androidNotification, _): size.androidNotification.set(0, for: role)
        case (.webpush, .fcmOptions), (.webpushFcmOptions, .link): refusedLink = nil
        case (.apns, .headers): apnsHeaders = FCMAPNsHeaders()
        case (.apns, .payload): clearPayload()
        default: break
        }
    }

    private mutating func clearData(at place: FCMSendScanner.Place) {
        switch place {
        case .message:
            size.messageData = 0
            reservedDataKey = nil
        case .android:
            size.androidData = nil
            reservedAndroidDataKey = nil
        case .webpush:
            size.webpushData = nil
            reservedWebpushDataKey = nil
        default: break
        }
    }

    private mutating func clearPayload() {
        hasAPNsPayload = false
        hasAPSObject = false
        aps = APNsPayloadShape.APSFacts()
        inexactAPNsPayload = nil
        size.apnsPayload = nil
    }

    /// Notes the string field `role` names in an object at `place`.
    mutating func note(_ text: UnsafeBufferPointer<UInt8>, field role: FCMScanTable.Role, place: FCMSendScanner.Place) {
        switch place {
        case .message:
            func value() -> String? { text.isEmpty ? nil : String(decoding: text, as: UTF8.self) }
            switch role {
            case .token: token = value()
            case .topic: topic = value()
            case .condition: condition = value()
            case .fid: fid = value()
            default: break
            }
        case .notification:
            size.notification.set(text.count, for: role)
        case .webpushFcmOptions:
            if role == .link, !FCMMessageValidator.isHTTPS(text) { refusedLink = String(decoding: text, as: UTF8.self) }
        case .androidNotification:
            if role == .color, !FCMMessageValidator.isColor(text) { refusedColor = String(decoding: text, as: UTF8.self) }
            size.androidNotification.set(text.count, for: role)
        default:
            break
        }
    }

    /// Notes a data map's size (keys and values, `nil` when empty) and its
    /// first reserved key.
    mutating func noteData(at place: FCMSendScanner.Place, bytes: Int, count: Int, reservedKey: String?) {
        switch place {
        case .message:
            size.messageData = bytes
            reservedDataKey = reservedKey
        case .android:
            size.androidData = count > 0 ? bytes : nil
            reservedAndroidDataKey = reservedKey
        case .webpush:
            size.webpushData = count > 0 ? bytes : nil
            reservedWebpushDataKey = reservedKey
        default: break
        }
    }
}
