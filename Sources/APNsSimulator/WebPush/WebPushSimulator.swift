/// A strict web push service (RFC 8030, with RFC 8291 message encryption
/// and RFC 8292 VAPID) on 127.0.0.1, behaving as Mozilla's autopush,
/// Google's FCM web push endpoint and Apple's web.push.apple.com do, for
/// tests (in process) and the demo.
///
/// It speaks HTTP/2 over TLS 1.2+ with ALPN `h2` (the same server core as
/// `APNsSimulator`), or HTTP/1.1 instead (`servesHTTP11`), and serves a
/// `ThrowawayPKI` certificate.
///
/// It plays both ends a browser and its push service play:
/// `makeSubscription()` creates what `PushManager.subscribe()` would (an
/// endpoint, a P-256 key pair and an auth secret) and keeps the private
/// key; `POST /push/<id>` is validated (VAPID, the RFC 8030 headers, the
/// size), decrypted, and answered `201 Created` (see
/// `WebPushRequestHandler` for the order and the statuses), and the
/// plaintext is recorded as the service worker would receive it
/// (`messages(for:)`, `statistics`).
///
/// Fault injection: per-subscription scripts (`script`, `always`: 404, 410,
/// 413, 429 with `Retry-After`, 5xx), `unsubscribe` (410 from then on), and
/// the connection faults of `APNsSimulatorFaults`.
///
/// Threads: one accept thread and one per connection; `stop()` joins them
/// all and `deinit` calls it. Every method is thread-safe.
public final class WebPushSimulator: Sendable {
    /// The configuration it was created with.
    public let configuration: WebPushSimulatorConfiguration
    /// The certificates it serves; give `pki.caPEM` to clients.
    public let pki: ThrowawayPKI

    private let core: WebPushSimulatorCore
    private let server: SimulatorServer

    /// Creates a stopped simulator; makes a `ThrowawayPKI` unless the
    /// configuration brings one.
    public init(configuration: WebPushSimulatorConfiguration = WebPushSimulatorConfiguration()) throws(APNsSimulatorError) {
        self.configuration = configuration
        if let given = configuration.pki { pki = given } else { pki = try ThrowawayPKI() }
        core = WebPushSimulatorCore(configuration: configuration, pki: pki)
        server = SimulatorServer(service: core, port: configuration.port, maxConnections: configuration.maxConnections)
    }

    deinit { stop() }

    /// Binds 127.0.0.1 and starts accepting. Throws when the port is taken,
    /// the TLS context cannot be built, or it was already started.
    public func start() throws(APNsSimulatorError) {
        try server.start()
        core.port = server.port
    }

    /// Stops accepting, closes every connection, and joins all threads.
    /// Idempotent; a stopped simulator cannot be started again.
    public func stop() { server.stop() }

    /// The bound port (0 until started).
    public var port: Int { server.port }

    /// `https://127.0.0.1:<port>`: the origin of every endpoint, and the
    /// `aud` every VAPID JWT must carry.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// The CA certificate (PEM) clients must trust.
    public var caPEM: String { pki.caPEM }

    /// Writes the CA certificate to `path`, for clients that take a CA file.
    public func writeCA(to path: String) throws(APNsSimulatorError) { try pki.writeCA(to: path) }

    /// Connections currently open.
    public var openConnections: Int { server.openConnections }

    // MARK: Subscriptions

    /// A new subscription, as a browser makes one: a fresh P-256 key pair
    /// and 16-byte auth secret, and an endpoint with a random id. With an
    /// `applicationServerKey` (base64url, the VAPID public key given to
    /// `subscribe()`), only that key may send to it (403 otherwise).
    /// The simulator must be started (the endpoint names its port).
    public func makeSubscription(applicationServerKey: String? = nil) throws(APNsSimulatorError) -> WebPushSubscription {
        let key = try OwnedKey.generateP256()
        var generator = SystemRandomNumberGenerator()
        let auth = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return try addSubscription(key: key, authSecret: auth, id: nil, applicationServerKey: applicationServerKey)
    }

    /// A subscription with given keys (a P-256 private scalar of 32 bytes
    /// and an auth secret of 16), for known-answer tests such as RFC 8291's
    /// Appendix A; `id` defaults to a random one.
    public func addSubscription(privateKey scalar: [UInt8], authSecret: [UInt8], id: String? = nil,
                                applicationServerKey: String? = nil) throws(APNsSimulatorError) -> WebPushSubscription {
        guard authSecret.count == 16 else {
            throw APNsSimulatorError(operation: "addSubscription", detail: "an auth secret is 16 bytes, not \(authSecret.count)")
        }
        return try addSubscription(key: try P256Point.privateKey(scalar: scalar), authSecret: authSecret, id: id,
                                   applicationServerKey: applicationServerKey)
    }

    private func addSubscription(key: OwnedKey, authSecret: [UInt8], id: String?,
                                 applicationServerKey: String?) throws(APNsSimulatorError) -> WebPushSubscription {
        guard port != 0 else {
            throw APNsSimulatorError(operation: "addSubscription", detail: "start the simulator first: the endpoint names its port")
        }
        var serverKey: [UInt8]?
        if let applicationServerKey {
            guard let point = Base64URL.decode(Substring(applicationServerKey)), P256Point.publicKey(point: point) != nil else {
                throw APNsSimulatorError(operation: "addSubscription", detail: "applicationServerKey is not a base64url P-256 point")
            }
            serverKey = point
        }
        let id = id ?? Self.randomID()
        guard !id.isEmpty, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }) else {
            throw APNsSimulatorError(operation: "addSubscription", detail: "an id is printable ASCII without / or ?")
        }
        let point = try P256Point.point(of: key)
        core.addSubscription(id: id, state: WebPushSubscriptionState(
            privateKeyPEM: try key.privateKeyPEM(), publicPoint: point, authSecret: authSecret,
            applicationServerKey: serverKey))
        return WebPushSubscription(id: id, endpoint: "\(url)\(WebPushSimulatorCore.pushPath)\(id)",
                                   p256dh: Base64URL.encode(point), auth: Base64URL.encode(authSecret))
    }

    /// 32 random bytes, base64url: as long and as opaque as real endpoints' ids.
    private static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Ends the subscription `id`, as when the user revokes the permission:
    /// every later send answers 410 Gone. False when there is no such subscription.
    @discardableResult
    public func unsubscribe(_ id: String) -> Bool { core.unsubscribe(id: id) }

    /// The messages accepted for subscription `id`, in answer order (when
    /// the configuration records messages).
    public func messages(for id: String) -> [WebPushSimulatorMessage] {
        core.statistics.messages.filter { $0.subscriptionID == id }
    }

    // MARK: Faults and scripts

    /// The connection-level faults in force.
    public var faults: APNsSimulatorFaults { core.faults }

    /// Replaces the connection-level faults; applies from the next request.
    public func setFaults(_ faults: APNsSimulatorFaults) { core.faults = faults }

    /// Answers the next valid messages to subscription `id` with
    /// `responses`, in order, then every later one with `thereafter` (or
    /// 201 when `nil`). Invalid requests are answered by validation and do
    /// not use up the script.
    public func script(_ id: String, responses: [WebPushSimulatorResponse], thereafter: WebPushSimulatorResponse? = nil) {
        core.script(id: id, responses: responses, thereafter: thereafter)
    }

    /// Answers every valid message to subscription `id` with `response`.
    public func always(_ id: String, _ response: WebPushSimulatorResponse) {
        core.script(id: id, responses: [], thereafter: response)
    }

    /// Removes the script of subscription `id`, or of every one when `nil`.
    public func clearScript(_ id: String? = nil) { core.clearScript(id: id) }

    /// Changes SETTINGS_MAX_CONCURRENT_STREAMS for every connection.
    public func setMaxConcurrentStreams(_ limit: Int) {
        core.maxConcurrentStreams = max(0, limit)
        server.wakeConnections()
    }

    // MARK: Statistics

    /// What the simulator has counted so far.
    public var statistics: WebPushSimulatorStatistics { core.statistics }

    /// Zeroes the statistics (subscriptions and connections stay).
    public func resetStatistics() { core.resetStatistics() }
}
