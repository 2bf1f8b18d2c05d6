/// FCM's own checks of a message that Google's JSON layer could read
/// (`FCMSendScanner`, which collects `FCMMessageFacts`), in a fixed order, first failure wins; each refusal
/// is 400 INVALID_ARGUMENT with the FcmError detail:
///
/// 1. Exactly one target: `token`, `topic`, `condition` or `fid` (an empty
///    string is unset, as in proto3).
/// 2. A token of the right shape (1–4096 characters of `A–Z a–z 0–9 - _ : .`),
///    else "The registration token is not a valid FCM registration token";
///    a topic matching `[a-zA-Z0-9-_.~%]+` as sent (B2: "no `/topics/`";
///    only the SDKs strip that prefix).
/// 2a. Not both `android` and `androidV2` (B2).
/// 3. No reserved data key in `data`, `android.data` or `webpush.data`:
///    `from`, `message_type`, or anything starting with `google` or `gcm`,
///    case-insensitively ("Invalid data payload key: from").
/// 4. `android.ttl` not negative and at most 4 weeks (2,419,200 s, B2);
///    `android.notification.color` `#rrggbb`; `webpush.fcmOptions.link`
///    an `https://` URL (B2, B6).
/// 5. `apns.payload`, when present, holds an `aps` object.
/// 6. `apns.headers` as APNs would take them (`FCMAPNsHeaders`: push type,
///    priority with FCM's default 10, 5 for a data-only push, id, collapse
///    id, expiration), else INVALID_ARGUMENT with APNs' reason in an
///    ApnsError detail.
/// 7. Every platform's payload within its limit (`FCMMessageSize`: the
///    message's, Android's and web push's data and notification texts at
///    most 4096 bytes, 2048 for topic and condition messages; the compact
///    `apns.payload` at most 4096), else "Message is too big".
enum FCMMessageValidator {
    /// The parts of a valid message the simulator acts on.
    struct ValidMessage {
        var token: String?
        var topic: String?
        var condition: String?
        var validateOnly: Bool
    }

    static let payloadLimit = 4096
    static let topicPayloadLimit = 2048

    /// Google's answer to a body read into `facts` with `violations`:
    /// the violations when there are any, else FCM's checks in order.
    /// `compactSize` measures the compact `apns.payload` written at a
    /// range of the body, when its written size does not settle its limit.
    static func validate(_ facts: FCMMessageFacts, violations: FCMSendScanner.Violations,
                         compactSize: (Range<Int>) -> Int) -> Result<ValidMessage, GoogleError> {
        guard violations.isEmpty else { return .failure(.unparsable(violations.inOrder)) }
        guard facts.hasMessage else {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message",
                                             description: "A message is required."))
        }
        let targets = [facts.token, facts.topic, facts.condition, facts.fid].count { $0 != nil }
        guard targets == 1 else {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message",
                                             description: "Exactly one of token, topic, condition or fid must be set."))
        }
        if let token = facts.token, !isWellFormedToken(token) {
            return .failure(.invalidArgument("The registration token is not a valid FCM registration token"))
        }
        if let topic = facts.topic, !isWellFormedTopic(topic) {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message.topic",
                                             description: "Invalid topic name: \(topic)"))
        }
        if facts.hasAndroid, facts.hasAndroidV2 {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message.android_v2",
                                             description: "android and android_v2 cannot both be set."))
        }
        let reserved = [("message.data", facts.reservedDataKey), ("message.android.data", facts.reservedAndroidDataKey),
                        ("message.webpush.data", facts.reservedWebpushDataKey)]
        for case let (path, key?) in reserved {
            return .failure(.invalidArgument("Invalid data payload key: \(key)", field: path))
        }
        if let ttl = facts.refusedTTL {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message.android.ttl",
                                             description: ttl.hasPrefix("-") ? "TTL must not be negative: \(ttl)"
                                                 : "TTL must be at most 4 weeks (2419200s): \(ttl)"))
        }
        if let color = facts.refusedColor {
            return .failure(.invalidArgument("Request contains an invalid argument.",
                                             field: "message.android.notification.color",
                                             description: "Invalid color: \(color); expected #rrggbb"))
        }
        if let link = facts.refusedLink {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message.webpush.fcm_options.link",
                                             description: "The link must be an HTTPS URL: \(link)"))
        }
        if facts.hasAPNsPayload, !facts.hasAPSObject {
            return .failure(.invalidArgument("Request contains an invalid argument.", field: "message.apns.payload",
                                             description: "The APNs payload must contain an \"aps\" dictionary."))
        }
        let contentAvailableOnly = facts.aps.isContentAvailableOnly
            && facts.size.notification.title == 0 && facts.size.notification.body == 0
        if let reason = facts.apnsHeaders.refusal(contentAvailableOnly: contentAvailableOnly) {
            return .failure(FCMAPNsHeaders.error(reason: reason))
        }
        let limit = facts.token != nil || facts.fid != nil ? payloadLimit : topicPayloadLimit
        var oversized = facts.size.oversizedPart(dataLimit: limit)
        if oversized?.part == .apns, let range = facts.inexactAPNsPayload {
            var size = facts.size
            size.apnsPayload = compactSize(range)
            oversized = size.oversizedPart(dataLimit: limit)
        }
        if let (part, bytes, partLimit) = oversized {
            let field = switch part {
            case .message: "message"
            case .android: "message.android"
            case .webpush: "message.webpush"
            case .apns: "message.apns.payload"
            }
            return .failure(.invalidArgument("Message is too big", field: field,
                                             description: FCMMessageSize.description(part, bytes: bytes, limit: partLimit)))
        }
        return .success(ValidMessage(token: facts.token ?? facts.fid, topic: facts.topic, condition: facts.condition,
                                     validateOnly: facts.validateOnly))
    }

    /// Whether `key` is one FCM reserves (PROTOCOLS.md B3's safe rule),
    /// case-insensitively, the prefixes tested on UTF-8 bytes: `gcḿx` (`gcm`
    /// then U+0301) starts with the bytes of `gcm` though not with its
    /// Characters.
    static func isReserved(_ key: String) -> Bool {
        let lower = key.lowercased().utf8
        return lower.elementsEqual("from".utf8) || lower.elementsEqual("message_type".utf8)
            || lower.starts(with: "google".utf8) || lower.starts(with: "gcm".utf8)
    }

    static func isWellFormedToken(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { isWellFormedToken($0) }
    }

    /// `isWellFormedToken` on the token's UTF-8.
    static func isWellFormedToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...4096).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: ".")
        }
    }

    static func isWellFormedTopic(_ topic: String) -> Bool {
        guard !topic.isEmpty else { return false }
        return topic.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "%")].contains(byte)
        }
    }

    /// The longest `android.ttl`: 4 weeks (PROTOCOLS.md B2).
    static let maximumTTLSeconds: Int64 = 2_419_200

    /// A Duration text (already read as one) not negative and at most 4 weeks.
    static func isAcceptedTTL(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let (seconds, hasFraction, negative) = ProtoJSONFormat.durationSeconds(text)
        return !negative && (seconds < maximumTTLSeconds || (seconds == maximumTTLSeconds && !hasFraction))
    }

    /// An `https://` URL (the scheme in any ASCII case, as URL schemes are).
    static func isHTTPS(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let scheme = Array("https://".utf8)
        guard text.count > scheme.count else { return false }
        for offset in 0..<scheme.count {
            let byte = text[offset]
            if ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) != scheme[offset] { return false }
        }
        return true
    }

    /// `#rrggbb`, given as UTF-8.
    static func isColor(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#") else { return false }
        return bytes.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }
}
