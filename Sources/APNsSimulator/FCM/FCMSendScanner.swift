/// The fast path of a `messages:send` body: one pass of the strict JSON
/// grammar (`StrictJSONParser`'s own pieces), checked against
/// `FCMMessageSchema` while it is read, keeping only what FCM's own checks
/// need, with no tree and no string per field.
///
/// It answers only "valid, and this is the message" — what
/// `FCMMessageReader` then `FCMMessageValidator` answer for the same body —
/// or `nil`: any violation, and anything it does not settle cheaply (a field
/// or a `message.data` key written twice, a field in both spellings, a
/// non-ASCII data key or case-insensitive enum value), goes to that strict
/// path, which finds and words the error. So every error is the strict
/// path's, byte for byte; tests check that the two agree on valid and
/// invalid bodies.
enum FCMSendScanner {
    /// The message of a `messages:send` body, or Google's refusal of it.
    static func check(_ body: [UInt8]) -> Result<FCMMessageValidator.ValidMessage, GoogleError> {
        // The fast path settles the usual valid body; it leaves every refusal
        // (and anything unusual) to the strict path below, which words it.
        if let message = validMessage(body) { return .success(message) }
        guard let tree = SimulatorJSONParser.parseOrdered(body) else { return .failure(.unexpectedToken) }
        let violations = FCMMessageReader.violations(in: tree)
        guard violations.isEmpty else { return .failure(.unparsable(violations)) }
        return FCMMessageValidator.validate(tree)
    }

    /// The message, when `body` is a valid `messages:send` request; `nil`
    /// when the strict path must decide.
    static func validMessage(_ body: [UInt8]) -> FCMMessageValidator.ValidMessage? {
        var facts = Facts()
        let read: Bool? = StrictJSONParser<APNsPayloadShape>.read(body) { parser in
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "{"),
                  parser.scanObject(FCMMessageSchema.sendRequest.scanTable, place: .root, facts: &facts) else { return nil }
            return true
        }
        guard read == true else { return nil }
        return facts.validMessage()
    }

    /// Where an object sits, as far as FCM's checks care.
    enum Place {
        case root, message, notification, android, androidNotification, webpush, webpushFcmOptions, apns, other

        /// The place of this object's field `role` names, when it is an object.
        func child(_ role: FCMScanTable.Role) -> Place {
            switch (self, role) {
            case (.root, .message): return .message
            case (.message, .notification): return .notification
            case (.message, .android): return .android
            case (.message, .webpush): return .webpush
            case (.message, .apns): return .apns
            case (.android, .notification): return .androidNotification
            case (.webpush, .fcmOptions): return .webpushFcmOptions
            default: return .other
            }
        }
    }

    /// What FCM's checks need, collected while reading.
    struct Facts {
        var hasMessage = false
        /// `message.android` and `message.androidV2` are set (not null).
        var hasAndroid = false
        var hasAndroidV2 = false
        var validateOnly = false
        var token: String?
        var topic: String?
        var condition: String?
        var fid: String?
        /// What FCM counts against its limits (the compact `apns.payload`
        /// only bounded from above, within its limit).
        var size = FCMMessageSize()
        /// `apns.headers`, as far as APNs' rules read them.
        var apnsHeaders = FCMAPNsHeaders()
        /// The facts of `apns.payload.aps`.
        var aps = APNsPayloadShape.APSFacts()

        /// Notes the string field `role` names in an object at `place`;
        /// `false` when FCM refuses it (`android.notification.color`).
        mutating func note(_ text: UnsafeBufferPointer<UInt8>, field role: FCMScanTable.Role, place: Place) -> Bool {
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
                size.notification.add(text.count, for: role)
            case .webpushFcmOptions:
                if role == .link { return FCMMessageValidator.isHTTPS(text) }
            case .androidNotification:
                if role == .color { return FCMMessageValidator.isColor(text) }
                size.androidNotification.add(text.count, for: role)
            default:
                break
            }
            return true
        }

        /// FCM's own checks (`FCMMessageValidator`) on what was read.
        func validMessage() -> FCMMessageValidator.ValidMessage? {
            let targets = (token == nil ? 0 : 1) + (topic == nil ? 0 : 1) + (condition == nil ? 0 : 1) + (fid == nil ? 0 : 1)
            guard hasMessage, targets == 1, !(hasAndroid && hasAndroidV2) else { return nil }
            if let token, !FCMMessageValidator.isWellFormedToken(token) { return nil }
            if let topic, !FCMMessageValidator.isWellFormedTopic(topic) { return nil }
            let limit = token != nil || fid != nil ? FCMMessageValidator.payloadLimit : FCMMessageValidator.topicPayloadLimit
            let contentAvailableOnly = aps.isContentAvailableOnly && size.notification.title == 0 && size.notification.body == 0
            guard apnsHeaders.refusal(contentAvailableOnly: contentAvailableOnly) == nil,
                  size.oversizedPart(dataLimit: limit) == nil else { return nil }
            return FCMMessageValidator.ValidMessage(token: token ?? fid, topic: topic, condition: condition,
                                                    validateOnly: validateOnly)
        }
    }

    /// Whether the ASCII data key is one FCM reserves (`isReserved`'s rule).
    static func isReservedASCII(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
        func hasPrefix(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard key.count >= count else { return false }
            for offset in 0..<count where lower(key[offset]) != word.utf8Start[offset] { return false }
            return true
        }
        func equals(_ word: StaticString) -> Bool { key.count == word.utf8CodeUnitCount && hasPrefix(word) }
        return equals("from") || equals("message_type") || hasPrefix("google") || hasPrefix("gcm")
    }
}
