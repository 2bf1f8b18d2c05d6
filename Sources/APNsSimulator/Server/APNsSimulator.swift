/// A strict APNs provider-API server on 127.0.0.1, for tests (in process)
/// and demos (`apns-simulator`).
///
/// It speaks HTTP/2 (nghttp2 server sessions) over TLS 1.2+ with ALPN `h2`
/// only, serves a `ThrowawayPKI` certificate, validates every request as
/// Apple does (see `RequestValidator` and `ProviderTokenVerifier` for the
/// exact rules and reasons) and answers `:status`, `apns-id` and, for
/// errors, `{"reason":…}`.
///
/// Where Apple documents no reason, the simulator picks the nearest one
/// Apple does document: malformed JSON, a payload that is not an object,
/// or one without an `aps` object → 400 `PayloadEmpty`; `apns-priority` 10
/// with push type `background` → 400 `BadPriority`; an empty `/3/device/`
/// → 400 `MissingDeviceToken`; a JWT `iat` more than the allowed skew in the
/// future → 403 `InvalidProviderToken`.
///
/// Faults (GOAWAY, dropped connections, delays, silence, new stream limits)
/// and per-token scripted answers can be changed while it runs; the
/// statistics prove what was accepted, once each.
///
/// Threads: one accept thread and one thread per connection (at most
/// `configuration.maxConnections`). `stop()` wakes, joins and closes them
/// all; `deinit` calls `stop()`. Every method is thread-safe.
public final class APNsSimulator: Sendable {
    /// The configuration it was created with.
    public let configuration: APNsSimulatorConfiguration
    /// The certificates it serves; give `pki.caPEM` to clients.
    public let pki: ThrowawayPKI

    private let core: SimulatorCore
    private let server: SimulatorServer

    /// Creates a stopped simulator. Makes a `ThrowawayPKI` unless the
    /// configuration brings one, and checks that every key is a P-256 public key.
    public init(configuration: APNsSimulatorConfiguration) throws(APNsSimulatorError) {
        for (keyID, pem) in configuration.keys {
            let key = try OwnedKey.publicKey(pem: pem)
            guard key.isP256 else {
                throw APNsSimulatorError(operation: "keys[\(keyID)]", detail: "not a P-256 (ES256) key")
            }
        }
        self.configuration = configuration
        if let given = configuration.pki { pki = given } else { pki = try ThrowawayPKI() }
        core = SimulatorCore(configuration: configuration, pki: pki)
        server = SimulatorServer(service: core, port: configuration.port, maxConnections: configuration.maxConnections)
    }

    deinit { stop() }

    /// Binds 127.0.0.1 and starts accepting. Throws when the port is taken,
    /// the TLS context cannot be built, or it was already started.
    public func start() throws(APNsSimulatorError) { try server.start() }

    /// Stops accepting, closes every connection (no GOAWAY), and joins all
    /// threads. Idempotent; a stopped simulator cannot be started again.
    public func stop() { server.stop() }

    /// The bound port (0 until started).
    public var port: Int { server.port }

    /// `https://127.0.0.1:<port>`, the base URL for clients.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// The CA certificate (PEM) clients must trust.
    public var caPEM: String { pki.caPEM }

    /// Writes the CA certificate to `path`, for clients that take a CA file.
    public func writeCA(to path: String) throws(APNsSimulatorError) { try pki.writeCA(to: path) }

    /// Connections currently open.
    public var openConnections: Int { server.openConnections }

    // MARK: Faults and scripts

    /// The connection-level faults in force.
    public var faults: APNsSimulatorFaults { core.faults }

    /// Replaces the faults; applies from the next completed request.
    public func setFaults(_ faults: APNsSimulatorFaults) { core.faults = faults }

    /// Answers the next valid requests for `token` with `responses`, in
    /// order, then every later one with `thereafter` (or 200 when `nil`).
    /// Invalid requests are answered by validation and do not use up the script.
    public func script(token: String, responses: [APNsSimulatorResponse], thereafter: APNsSimulatorResponse? = nil) {
        core.script(token: token, responses: responses, thereafter: thereafter)
    }

    /// Answers every valid request for `token` with `response`.
    public func always(token: String, _ response: APNsSimulatorResponse) {
        core.script(token: token, responses: [], thereafter: response)
    }

    /// Removes the script of `token`, or of every token when `nil`.
    public func clearScript(token: String? = nil) { core.clearScript(token: token) }

    /// Binds `token` to `topic` (a bundle ID): other topics get 400
    /// DeviceTokenNotForTopic. `nil` removes the binding.
    public func registerDevice(token: String, topic: String?) {
        core.registerDevice(token: token, topic: topic)
    }

    /// The SETTINGS_MAX_CONCURRENT_STREAMS for new connections and, through a
    /// new SETTINGS frame, for every open one.
    public var maxConcurrentStreams: Int { core.maxConcurrentStreams }

    /// Changes SETTINGS_MAX_CONCURRENT_STREAMS; open connections send a new
    /// SETTINGS frame at once.
    public func setMaxConcurrentStreams(_ limit: Int) {
        core.maxConcurrentStreams = max(0, limit)
        server.wakeConnections()
    }

    // MARK: Statistics

    /// What the simulator has counted so far.
    public var statistics: APNsSimulatorStatistics { core.statistics }

    /// Zeroes the statistics (connections stay open).
    public func resetStatistics() { core.resetStatistics() }
}
