/// Apple's request checks (PROTOCOLS.md A2–A5), in a fixed order, first
/// failure wins:
///
/// 1. `:method` is POST, else 405 `MethodNotAllowed`.
/// 2. `:path` is `/3/device/<token>`, else 404 `BadPath`; an empty token is
///    400 `MissingDeviceToken`; a token that is not even-length hex of 64–200
///    digits is 400 `BadDeviceToken`.
/// 3. No header field twice, else 400 `DuplicateHeaders`.
/// 4. The provider token (see `ProviderTokenVerifier`): 403 or 429.
/// 5. `apns-topic` present (400 `MissingTopic`), one of the team's topics or
///    a topic plus a push-type suffix (400 `BadTopic`), and the token's own
///    topic when the token is registered (400 `DeviceTokenNotForTopic`).
/// 6. `apns-push-type`, when sent, one of Apple's 11 (400 `InvalidPushType`),
///    on a topic with its suffix: `voip` on `<bundle>.voip`, `alert` on
///    `<bundle>`… (400 `BadTopic`; `APNsHeaderRules.pairs` says why that
///    reason).
/// 7. `apns-priority`, when sent, 10, 5 or 1; the effective priority (the
///    header's, else the default 10) 5 for `background` and 10 or 5 for
///    `location` (400 `BadPriority`; `APNsHeaderRules`).
/// 8. `apns-id`, when sent, a lowercase 8-4-4-4-12 UUID (400 `BadMessageId`).
/// 9. `apns-collapse-id` at most 64 bytes (400 `BadCollapseId`).
/// 10. `apns-expiration`, when sent, decimal digits (400 `BadExpirationDate`).
/// 11. A body (400 `PayloadEmpty`) of at most 4096 bytes, 5120 for `voip`
///     (which step 6 has put on a `.voip` topic)
///     (413 `PayloadTooLarge`), that is a JSON object with an `aps` object.
///     Apple has no reason for malformed JSON; the simulator answers 400
///     `PayloadEmpty`, the nearest reason Apple documents ("the message
///     payload was empty" — nothing deliverable was found).
///
/// Pure apart from the connection's token state, which the caller owns.
/// It reads the header values as the bytes received (`APNsHeaderIndex`)
/// and builds no String, Set or Dictionary for a valid request (the
/// answer's `apns-id` aside); the payload is read for its shape only.
/// Values are compared as bytes, as Apple reads them; where a value is not
/// ASCII, the check says how such bytes fare.
struct RequestValidator {
    /// The configured topics' bytes (compared as bytes, as `UTF8Key` does).
    private let topics: [[UInt8]]
    let requiresAPSDictionary: Bool

    static let payloadLimit = 4096
    static let voipPayloadLimit = 5120
    static let collapseIDLimit = 64
    static let devicePathPrefix = "/3/device/"

    init(configuration: APNsSimulatorConfiguration) {
        topics = configuration.topics.map { Array($0.utf8) }
        requiresAPSDictionary = configuration.requiresAPSDictionary
    }

    /// Validates `request`. `registeredTopic` gives the topic a token is bound
    /// to, if any (it asks for the lowercased token only when some token is
    /// registered); `tokens` is the connection's provider-token state.
    func validate(
        _ request: ReceivedRequest,
        tokens: inout ProviderTokenVerifier,
        registeredTopic: (_ lowercasedToken: () -> String) -> String?,
        now: Double
    ) -> RequestVerdict {
        request.fields.bytes.withUnsafeBufferPointer { all in
            let index = APNsHeaderIndex(request.fields, bytes: all)
            let entries = request.fields.entries
            func value(_ name: APNsHeaderIndex.Name) -> UnsafeBufferPointer<UInt8>? {
                index[name].map { UnsafeBufferPointer(rebasing: all[entries[$0].valueRange]) }
            }
            let sentID = value(.id)
            let validSentID = sentID.flatMap { APNsIdentifier.isValid($0) ? $0 : nil }
            func answerID() -> String { validSentID.map { String(decoding: $0, as: UTF8.self) } ?? APNsIdentifier.generate() }
            func reject(_ status: Int, _ reason: String) -> RequestVerdict {
                .rejected(APNsSimulatorResponse(status: status, reason: reason), apnsID: answerID())
            }

            guard let method = value(.method), TextBytes.equal(method, "POST") else { return reject(405, "MethodNotAllowed") }
            let deviceToken: UnsafeBufferPointer<UInt8>
            switch Self.deviceToken(inPath: value(.path)) {
            case .badPath: return reject(404, "BadPath")
            case .missing: return reject(400, "MissingDeviceToken")
            case .malformed: return reject(400, "BadDeviceToken")
            case .token(let token): deviceToken = token
            }
            if index.hasDuplicate { return reject(400, "DuplicateHeaders") }

            if let tokenProblem = tokens.check(authorizationBytes: value(.authorization), now: now) {
                return .rejected(tokenProblem, apnsID: answerID())
            }

            guard let topic = value(.topic), !topic.isEmpty else { return reject(400, "MissingTopic") }
            guard let bundle = bundleID(of: topic) else { return reject(400, "BadTopic") }
            let suffix = UnsafeBufferPointer(rebasing: topic[bundle.count...])
            if var bound = registeredTopic({ Self.lowercased(deviceToken) }), !bound.withUTF8({ TextBytes.equal($0, bundle) }) {
                return reject(400, "DeviceTokenNotForTopic")
            }

            let pushType = value(.pushType)
            if let pushType {
                guard APNsHeaderRules.isPushType(pushType) else { return reject(400, "InvalidPushType") }
                guard APNsHeaderRules.pairs(pushType: pushType, withSuffix: suffix) else { return reject(400, "BadTopic") }
            }

            var priority = APNsHeaderRules.defaultPriority
            if let text = value(.priority) {
                guard let sent = APNsHeaderRules.priority(text) else { return reject(400, "BadPriority") }
                priority = sent
            }
            guard APNsHeaderRules.allows(priority: priority, pushType: pushType, contentAvailableOnly: false) else {
                return reject(400, "BadPriority")
            }

            if sentID != nil, validSentID == nil { return reject(400, "BadMessageId") }

            if let collapseID = value(.collapseID), TextBytes.decodedCount(collapseID) > Self.collapseIDLimit {
                return reject(400, "BadCollapseId")
            }

            var expiration: Int64?
            if let text = value(.expiration) {
                guard let seconds = APNsHeaderRules.expiration(text) else { return reject(400, "BadExpirationDate") }
                expiration = seconds
            }

            guard request.bodyLength > 0 else { return reject(400, "PayloadEmpty") }
            let isVoIP = pushType.map { TextBytes.equal($0, "voip") } ?? false
            guard request.bodyLength <= (isVoIP ? Self.voipPayloadLimit : Self.payloadLimit) else {
                return reject(413, "PayloadTooLarge")
            }
            guard case .object(let hasAPSObject, let aps, _)? = APNsPayloadShape.parse(request.body) else {
                return reject(400, "PayloadEmpty")
            }
            if requiresAPSDictionary, !hasAPSObject { return reject(400, "PayloadEmpty") }
            // A push that only wakes the app (content-available, nothing shown)
            // is a background push whatever the header says: priority 5 only
            // (PROTOCOLS.md A2, B2), as the FCM simulator has it.
            guard APNsHeaderRules.allows(priority: priority, pushType: pushType, contentAvailableOnly: aps.isContentAvailableOnly) else {
                return reject(400, "BadPriority")
            }

            return .valid(ValidatedNotification(request: request, apnsID: answerID(), apnsIDWasSent: sentID != nil,
                                                priority: priority, expiration: expiration))
        }
    }

    /// What `:path` says of the device token.
    private enum DeviceTokenInPath {
        case badPath, missing, malformed
        case token(UnsafeBufferPointer<UInt8>)
    }

    /// The device token after `/3/device/`. The prefix is matched as a
    /// String prefix is: when the token starts with a combining mark, that
    /// mark belongs to the prefix's last `/` and the path is not a device
    /// path. A token that is not ASCII is never well-formed, so only a
    /// malformed token needs that look.
    private static func deviceToken(inPath path: UnsafeBufferPointer<UInt8>?) -> DeviceTokenInPath {
        guard let path, TextBytes.hasPrefix(path, "/3/device/") else { return .badPath }
        let token = UnsafeBufferPointer(rebasing: path[devicePathPrefix.utf8.count...])
        if token.isEmpty { return .missing }
        if isWellFormedDeviceToken(token) { return .token(token) }
        if !TextBytes.isASCII(token), !String(decoding: path, as: UTF8.self).hasPrefix(devicePathPrefix) { return .badPath }
        return .malformed
    }

    /// Even-length hex, 64 to 200 digits (today's tokens are 64; Apple says
    /// not to assume a fixed length).
    static func isWellFormedDeviceToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 64, bytes.count <= 200, bytes.count % 2 == 0 else { return false }
        for byte in bytes {
            switch byte {
            case 0x30...0x39, 0x41...0x46, 0x61...0x66: continue
            default: return false
            }
        }
        return true
    }

    /// The configured bundle ID `topic` is, or is followed by a push-type
    /// suffix (`APNsHeaderRules.topicSuffixes`), as bytes.
    private func bundleID(of topic: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        func isConfigured(_ bundle: UnsafeBufferPointer<UInt8>) -> Bool {
            topics.contains { $0.withUnsafeBufferPointer { TextBytes.equal(bundle, $0) } }
        }
        if isConfigured(topic) { return topic }
        for (_, suffix) in APNsHeaderRules.topicSuffixBytes where !suffix.isEmpty && topic.count >= suffix.count {
            let split = topic.count - suffix.count
            guard suffix.withUnsafeBufferPointer({ TextBytes.equal(UnsafeBufferPointer(rebasing: topic[split...]), $0) }) else {
                continue
            }
            let bundle = UnsafeBufferPointer(rebasing: topic[..<split])
            if isConfigured(bundle) { return bundle }
        }
        return nil
    }

    /// A well-formed (so ASCII) device token lowercased, as
    /// `String.lowercased()` does it.
    private static func lowercased(_ token: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: token.count) { buffer in
            for (offset, byte) in token.enumerated() { buffer[offset] = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
            return token.count
        }
    }
}
