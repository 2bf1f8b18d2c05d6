public import EventLoops
public import HTTP2Client
public import PayloadBuilder
public import WebPush
import PushGWSync

/// Sends direct web push messages (RFC 8030) for one app: one
/// `ProviderClient` per push service origin, made on its first message and
/// kept (at most `maximumOrigins`), each over HTTP/2 with the origin's VAPID
/// authorization (RFC 8292); every message encrypted for its subscription
/// (RFC 8291 `aes128gcm`, a fresh key and salt per message) just before it
/// goes.
///
/// Endpoints are checked by the `WebPushEndpointPolicy` before anything is
/// sent: a host not on the allow-list, or one resolving only to refused
/// addresses, is that subscription's final outcome, never the event's.
///
/// Thread-safety: `Sendable`; `send` may be called from many threads at once.
public final class WebPushSender: Sendable {
    /// How many push service origins get a client; a message to another
    /// origin is refused (`too_many_push_services`). Browsers' push services
    /// are a handful of origins, so the bound only stops endpoints of many
    /// made-up hosts from opening connections without end.
    public let maximumOrigins: Int
    public let authorizer: VAPIDAuthorizer
    public let policy: WebPushEndpointPolicy
    private let tls: TLSConfiguration
    private let connections: Int
    private let requestTimeout: Duration
    private let options: HTTP2ConnectionOptions
    private let loops: [EventLoop]?
    private let now: @Sendable () -> Int64
    private let clients = Locked<[PushServiceOrigin: ProviderClient<WebPushProvider>]>([:])

    /// - Parameters:
    ///   - connections: per origin.
    ///   - options: the connections' options (timing, limits); the
    ///     policy's address rule and the headers read are set on them.
    ///   - loops: event loops to run the connections on (the gateway's); nil: each pool's own.
    public init(authorizer: VAPIDAuthorizer, policy: WebPushEndpointPolicy, tls: TLSConfiguration, connections: Int = 1,
                requestTimeout: Duration = .seconds(10), maximumOrigins: Int = 32, options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(),
                loops: [EventLoop]? = nil, now: @escaping @Sendable () -> Int64 = VAPIDAuthorizer.wallClock) {
        self.authorizer = authorizer
        self.policy = policy
        self.tls = tls
        self.connections = max(1, connections)
        self.requestTimeout = requestTimeout
        self.maximumOrigins = maximumOrigins
        self.loops = loops
        self.now = now
        var options = options
        options.admitsAddress = policy.admitsAddress
        options.keptResponseHeaders = ["location", "retry-after"]
        self.options = options
    }

    /// The origins with a client (tests).
    public var origins: [PushServiceOrigin] {
        clients.withLock { Array($0.keys) }
    }

    /// Closes every client's connections.
    public func shutdown() {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all { client.shutdown() }
    }

    /// Sends each `webpush` request (its body the plaintext, `webPushKeys`
    /// set) to its endpoint and calls `completion` once with one result per
    /// request, in order.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil,
                     completion: @escaping @Sendable ([Result<WebPushOutcome, TransportError>]) -> Void) {
        var results = [Result<WebPushOutcome, TransportError>?](repeating: nil, count: requests.count)
        // Each origin's positions, in order of first appearance.
        var groups: [(client: ProviderClient<WebPushProvider>, positions: [Int], requests: [ProviderRequest])] = []
        for index in requests.indices {
            switch prepared(requests[index]) {
            case let .answered(result):
                results[index] = result
            case let .send(client, request):
                if let group = groups.firstIndex(where: { $0.client === client }) {
                    groups[group].positions.append(index)
                    groups[group].requests.append(request)
                } else {
                    groups.append((client, [index], [request]))
                }
            }
        }
        guard !groups.isEmpty else { return completion(results.map { $0! }) }
        let gathered = Locked((results: results, left: groups.count))
        for group in groups {
            group.client.send(group.requests, timeout: timeout) { outcomes in
                let done: [Result<WebPushOutcome, TransportError>]? = gathered.withLock { state in
                    for (position, index) in group.positions.enumerated() { state.results[index] = outcomes[position] }
                    state.left -= 1
                    return state.left == 0 ? state.results.map { $0! } : nil
                }
                if let done { completion(done) }
            }
        }
    }

    /// Async form of `send(_:timeout:completion:)`.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil) async -> [Result<WebPushOutcome, TransportError>] {
        await withCheckedContinuation { continuation in
            send(requests, timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// A request ready to go to its origin's client, or its result without sending.
    private enum Prepared {
        case send(ProviderClient<WebPushProvider>, ProviderRequest)
        case answered(Result<WebPushOutcome, TransportError>)

        static func refused(_ rejection: WebPushRejection) -> Prepared { .answered(.success(.rejected(rejection))) }
    }

    /// The request's client and the request with its body encrypted, or why it is not sent.
    private func prepared(_ request: ProviderRequest) -> Prepared {
        let origin: PushServiceOrigin
        do throws(VAPIDError) {
            origin = try PushServiceOrigin(endpoint: request.token)
        } catch {
            return .refused(.endpointUnusable)
        }
        guard origin.serialized.hasPrefix("https://"), let transportOrigin = try? Origin(url: origin.serialized) else {
            return .refused(.endpointUnusable)
        }
        guard policy.admits(host: transportOrigin.host) else { return .refused(.hostNotAllowed) }
        guard let keys = request.webPushKeys,
              let subscription = try? WebPushSubscriptionKeys(p256dh: keys.p256dh, auth: keys.auth) else {
            return .refused(.unusableKeys)
        }
        let body: [UInt8]
        do throws(WebPushError) {
            body = try WebPushEncryption.encrypt(request.body, for: subscription)
        } catch {
            if case .payloadTooLarge = error { return .refused(WebPushRejection(status: 0, reason: "payload_too_large", verdict: .final)) }
            return .answered(.failure(TransportError(.credentials, "web push encryption failed: \(error)")))
        }
        var encrypted = request
        encrypted.body = body
        return clients.withLock { clients in
            if let client = clients[origin] { return .send(client, encrypted) }
            guard clients.count < maximumOrigins else { return .refused(.tooManyOrigins) }
            do throws(TransportError) {
                let client = try ProviderClient(
                    provider: WebPushProvider(origin: origin, authorizer: authorizer, now: now), origin: transportOrigin, tls: tls,
                    connections: connections, requestTimeout: requestTimeout, options: options, backoff: Backoff(), loops: loops)
                clients[origin] = client
                return .send(client, encrypted)
            } catch {
                return .answered(.failure(error))
            }
        }
    }
}
