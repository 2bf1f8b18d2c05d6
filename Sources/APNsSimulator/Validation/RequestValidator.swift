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
/// The usual valid request takes the fast path (`fastVerdict`, on the
/// header bytes); everything else this strict one, which words every
/// rejection.
struct RequestValidator {
    /// Compared as bytes (`UTF8Key`).
    private let topics: Set<UTF8Key>
    /// The topics as bytes, or `nil` when one is not ASCII (the fast path
    /// then stands aside: only ASCII bytes compare as Strings do).
    let asciiTopics: [[UInt8]]?
    let requiresAPSDictionary: Bool

    /// Topic suffixes some push types require after the bundle ID.
    static let topicSuffixes = APNsHeaderRules.topicSuffixes.map(\.suffix).filter { !$0.isEmpty }
    static let payloadLimit = 4096
    static let voipPayloadLimit = 5120
    static let collapseIDLimit = 64
    static let devicePathPrefix = "/3/device/"

    init(configuration: APNsSimulatorConfiguration) {
        topics = Set(configuration.topics.map(UTF8Key.init))
        asciiTopics = configuration.topics.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
            ? configuration.topics.map { Array($0.utf8) } : nil
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
        fastVerdict(request, tokens: &tokens, registeredTopic: registeredTopic, now: now)
            ?? strictVerdict(request, tokens: &tokens, registeredTopic: registeredTopic, now: now)
    }

    /// Every check in Apple's order, on the header values as Strings.
    func strictVerdict(
        _ request: ReceivedRequest,
        tokens: inout ProviderTokenVerifier,
        registeredTopic: (_ lowercasedToken: () -> String) -> String?,
        now: Double
    ) -> RequestVerdict {
        let sentID = request.value("apns-id")
        let validSentID = sentID.flatMap { APNsIdentifier.isValid($0) ? $0 : nil }
        let answerID = validSentID ?? APNsIdentifier.generate()
        func reject(_ status: Int, _ reason: String) -> RequestVerdict {
            .rejected(APNsSimulatorResponse(status: status, reason: reason), apnsID: answerID)
        }

        guard request.value(":method") == "POST" else { return reject(405, "MethodNotAllowed") }
        let path = request.value(":path") ?? ""
        let prefix = Self.devicePathPrefix
        guard path.hasPrefix(prefix) else { return reject(404, "BadPath") }
        let deviceToken = String(path.dropFirst(prefix.count))
        guard !deviceToken.isEmpty else { return reject(400, "MissingDeviceToken") }
        guard Self.isWellFormedDeviceToken(deviceToken) else { return reject(400, "BadDeviceToken") }
        if request.duplicatedHeaderName != nil { return reject(400, "DuplicateHeaders") }

        if let tokenProblem = tokens.check(authorization: request.value("authorization"), now: now) {
            return .rejected(tokenProblem, apnsID: answerID)
        }

        guard let topic = request.value("apns-topic"), !topic.isEmpty else { return reject(400, "MissingTopic") }
        guard let (bundle, suffix) = bundleID(of: topic) else { return reject(400, "BadTopic") }
        if let bound = registeredTopic({ deviceToken.lowercased() }), !bound.sameBytes(as: bundle) {
            return reject(400, "DeviceTokenNotForTopic")
        }

        let pushType = request.value("apns-push-type")
        if let pushType {
            guard APNsHeaderRules.isPushType(pushType) else { return reject(400, "InvalidPushType") }
            guard APNsHeaderRules.pairs(pushType: pushType, withSuffix: suffix) else { return reject(400, "BadTopic") }
        }

        var priority = APNsHeaderRules.defaultPriority
        if let text = request.value("apns-priority") {
            guard let value = APNsHeaderRules.priority(text) else { return reject(400, "BadPriority") }
            priority = value
        }
        guard APNsHeaderRules.allows(priority: priority, pushType: pushType, contentAvailableOnly: false) else {
            return reject(400, "BadPriority")
        }

        if sentID != nil, validSentID == nil { return reject(400, "BadMessageId") }

        let collapseID = request.value("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > Self.collapseIDLimit { return reject(400, "BadCollapseId") }

        var expiration: Int64?
        if let text = request.value("apns-expiration") {
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(text) else {
                return reject(400, "BadExpirationDate")
            }
            expiration = value
        }

        guard request.bodyLength > 0 else { return reject(400, "PayloadEmpty") }
        let limit = pushType?.utf8.elementsEqual("voip".utf8) == true ? Self.voipPayloadLimit : Self.payloadLimit
        guard request.bodyLength <= limit else { return reject(413, "PayloadTooLarge") }
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

        return .valid(ValidatedNotification(request: request, apnsID: answerID, apnsIDWasSent: sentID != nil,
                                            priority: priority, expiration: expiration))
    }

    /// Even-length hex, 64 to 200 digits (today's tokens are 64; Apple says
    /// not to assume a fixed length).
    static func isWellFormedDeviceToken(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { isWellFormedDeviceToken($0) }
    }

    /// `isWellFormedDeviceToken` on bytes.
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

    /// The configured bundle ID `topic` belongs to, if any, and the push-type
    /// suffix after it (`""` for the bundle ID itself).
    private func bundleID(of topic: String) -> (bundle: String, suffix: String)? {
        if topics.contains(UTF8Key(topic)) { return (topic, "") }
        for suffix in Self.topicSuffixes where topic.hasSuffixBytes(suffix) {
            let bundleBytes = Array(topic.utf8.dropLast(suffix.utf8.count))
            if topics.contains(UTF8Key(bytes: bundleBytes)) { return (String(decoding: bundleBytes, as: UTF8.self), suffix) }
        }
        return nil
    }
}
