/// Answers the requests of one connection to the web push simulator, in
/// the order a push service checks them:
///
/// 1. `POST /push/<id>` (a query is ignored); another path → 404
///    `NotFound`, another method → 405 `MethodNotAllowed`.
/// 2. The subscription: unknown → 404 `NotFound`; unsubscribed → 410 `Gone`.
/// 3. VAPID (`VAPIDVerifier`): 401; a key other than the subscription's
///    `applicationServerKey` → 403 `VAPIDKeyMismatch`, as autopush answers.
/// 4. The RFC 8030 headers (`WebPushHeaderRules`): 400.
/// 5. The body size: over `maxBodySize` → 413 `PayloadTooLarge`.
/// 6. Decryption (`WebPushContentDecoder`): 400 `DecryptionFailed`, naming why.
/// 7. The subscription's script, or `201 Created` with
///    `Location: https://127.0.0.1:PORT/message/<id>` and the `TTL` echoed.
///
/// Thread-confined to its connection's thread. It keeps the subscriptions'
/// private keys it has parsed and the last VAPID header it verified.
final class WebPushRequestHandler: HTTP2RequestHandler {
    private let core: WebPushSimulatorCore
    private let number: Int
    private var vapid: VAPIDVerifier
    /// Parsed private keys by subscription id, with the PEM each came from
    /// (a subscription added again under the same id brings a new one).
    private var keys: [String: (pem: String, key: OwnedKey)] = [:]

    init(core: WebPushSimulatorCore, number: Int) {
        self.core = core
        self.number = number
        vapid = VAPIDVerifier(maxLifetime: core.configuration.maxJWTLifetime)
    }

    func streamLimit(serviceLimit: Int) -> Int { serviceLimit }

    func answer(_ request: ReceivedRequest, streamID: Int32) -> HTTP2Answer {
        switch check(request) {
        case .failure(let refusal):
            core.recordRejection(refusal.response)
            return Self.answer(refusal.response)
        case .success(let message):
            let (response, messageID) = core.answer(for: message)
            guard let messageID else { return Self.answer(response) }
            return HTTP2Answer(status: 201, headers: [
                ("location", "\(core.origin)/message/\(messageID)"),
                ("ttl", String(message.headers.ttl)),
            ])
        }
    }

    private func check(_ request: ReceivedRequest) -> Result<WebPushSimulatorCore.ValidMessage, WebPushRefusal> {
        let path = FCMRequestHandler.route(of: request.value(":path") ?? "")
        guard path.hasPrefix(WebPushSimulatorCore.pushPath) else {
            return .failure(WebPushRefusal(status: 404, "NotFound", "No push resource at \(path)"))
        }
        let id = String(path.dropFirst(WebPushSimulatorCore.pushPath.count))
        guard request.value(":method") == "POST" else {
            return .failure(WebPushRefusal(status: 405, "MethodNotAllowed", "Push messages are POSTed"))
        }
        guard !id.isEmpty, !id.contains("/"), let subscription = core.subscription(id: id) else {
            return .failure(WebPushRefusal(.notFound))
        }
        guard !subscription.isGone else { return .failure(WebPushRefusal(.gone)) }

        let claims: VAPIDVerifier.Claims
        switch vapid.check(authorization: request.value("authorization"), origin: core.origin, now: core.configuration.clock()) {
        case .success(let verified): claims = verified
        case .failure(let refusal): return .failure(refusal)
        }
        if let required = subscription.applicationServerKey, required != claims.publicKey {
            return .failure(WebPushRefusal(status: 403, "VAPIDKeyMismatch",
                                           "k is not the applicationServerKey the subscription was created with"))
        }
        let headers: WebPushHeaderRules.Headers
        switch WebPushHeaderRules.check(request) {
        case .success(let checked): headers = checked
        case .failure(let refusal): return .failure(refusal)
        }
        guard request.bodyLength <= core.configuration.maxBodySize else {
            let limit = core.configuration.maxBodySize
            return .failure(WebPushRefusal(status: 413, "PayloadTooLarge",
                                           "The body is \(request.bodyLength) bytes; at most \(limit) are accepted"))
        }
        var plaintext: [UInt8] = []
        if request.bodyLength > 0 {
            guard let key = privateKey(id: id, subscription: subscription) else {
                return .failure(WebPushRefusal(.internalServerError))
            }
            switch WebPushContentDecoder.decrypt(request.body, receiverKey: key, receiverPoint: subscription.publicPoint,
                                                 authSecret: subscription.authSecret) {
            case .success(let opened): plaintext = opened
            case .failure(let failure):
                return .failure(WebPushRefusal(status: 400, "DecryptionFailed", failure.message))
            }
        }
        return .success(WebPushSimulatorCore.ValidMessage(
            subscriptionID: id, headers: headers, claims: claims, plaintext: plaintext,
            bodySize: request.bodyLength, connection: number))
    }

    /// The subscription's private key, parsed once per connection.
    private func privateKey(id: String, subscription: WebPushSubscriptionState) -> OwnedKey? {
        if let parsed = keys[id], parsed.pem == subscription.privateKeyPEM { return parsed.key }
        guard let key = try? OwnedKey.privateKey(pem: subscription.privateKeyPEM) else { return nil }
        keys[id] = (subscription.privateKeyPEM, key)
        return key
    }

    private static func answer(_ response: WebPushSimulatorResponse) -> HTTP2Answer {
        if response.status == 201 { return HTTP2Answer(status: 201) }
        var headers: [(name: String, value: String)] = [("content-type", "application/json")]
        if let retryAfter = response.retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return HTTP2Answer(status: response.status, headers: headers, body: response.body)
    }
}
