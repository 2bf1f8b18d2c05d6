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
/// sent: a host not on the allow-list is not sent to (`notSent`), and one
/// resolving only to refused addresses fails with `addressRefused`, final;
/// either is that subscription's outcome, never the event's.
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
    /// Origins whose push service did not select `h2`: sent over HTTP/1.1.
    private let http11Origins = Locked<Set<PushServiceOrigin>>([])
    private let http11: WebPushHTTP1Transport

    /// - Parameters:
    ///   - connections: per origin.
    ///   - http11Threads: the threads that may block in libcurl at once for
    ///     origins without HTTP/2.
    ///   - options: the connections' options (timing, limits); the
    ///     policy's address rule and the headers read are set on them.
    ///   - loops: event loops to run the connections on (the gateway's); nil: each pool's own.
    public init(authorizer: VAPIDAuthorizer, policy: WebPushEndpointPolicy, tls: TLSConfiguration, connections: Int = 1,
                requestTimeout: Duration = .seconds(10), maximumOrigins: Int = 32, http11Threads: Int = 4,
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(),
                loops: [EventLoop]? = nil, now: @escaping @Sendable () -> Int64 = VAPIDAuthorizer.wallClock) {
        self.authorizer = authorizer
        self.policy = policy
        var tls = tls
        // A service without HTTP/2 then completes the handshake and says so (`noHTTP2`).
        tls.offersHTTP11 = true
        self.tls = tls
        http11 = WebPushHTTP1Transport(threads: http11Threads, caFile: tls.caFile, admitsAddress: policy.admitsAddress,
                                       route: options.route)
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

    /// The origins sent to over HTTP/1.1, their push service not offering HTTP/2 (tests).
    public var http11OriginList: [PushServiceOrigin] {
        http11Origins.withLock { Array($0) }
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
    ///
    /// An origin whose push service does not select `h2` by ALPN is
    /// remembered: the messages that found out are sent again over
    /// HTTP/1.1 at once, and its later ones go there directly.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil,
                     completion: @escaping @Sendable ([Result<WebPushOutcome, TransportError>]) -> Void) {
        let deadline = ContinuousClock.now + min(timeout ?? requestTimeout, requestTimeout)
        var results = [Result<WebPushOutcome, TransportError>?](repeating: nil, count: requests.count)
        // Each HTTP/2 origin's positions, in order of first appearance; HTTP/1.1 messages one by one.
        var groups: [(origin: PushServiceOrigin, client: ProviderClient<WebPushProvider>, positions: [Int], requests: [ProviderRequest])] = []
        var overHTTP11: [(position: Int, origin: PushServiceOrigin, request: ProviderRequest)] = []
        let http11 = http11Origins.withLock { $0 }
        for index in requests.indices {
            switch prepared(requests[index], overHTTP11: http11) {
            case let .answered(result):
                results[index] = result
            case let .sendOverHTTP11(origin, request):
                overHTTP11.append((index, origin, request))
            case let .send(origin, client, request):
                if let group = groups.firstIndex(where: { $0.client === client }) {
                    groups[group].positions.append(index)
                    groups[group].requests.append(request)
                } else {
                    groups.append((origin, client, [index], [request]))
                }
            }
        }
        let parts = groups.count + overHTTP11.count
        guard parts > 0 else { return completion(results.map { $0! }) }
        let gathered = Locked((results: results, left: parts))
        @Sendable func settle(_ answers: [(index: Int, result: Result<WebPushOutcome, TransportError>)]) {
            let done: [Result<WebPushOutcome, TransportError>]? = gathered.withLock { state in
                for answer in answers { state.results[answer.index] = answer.result }
                state.left -= 1
                return state.left == 0 ? state.results.map { $0! } : nil
            }
            if let done { completion(done) }
        }
        for message in overHTTP11 {
            sendOverHTTP11(message.request, origin: message.origin, deadline: deadline) { settle([(message.position, $0)]) }
        }
        for group in groups {
            group.client.send(group.requests, timeout: max(.zero, deadline - ContinuousClock.now)) { outcomes in
                // Those the service refused HTTP/2 for, and those another
                // send's fallback closed this origin's HTTP/2 client under.
                let knownHTTP11 = self.http11Origins.withLock { $0.contains(group.origin) }
                let refused = outcomes.indices.filter {
                    Self.refusesHTTP2(outcomes[$0]) || (knownHTTP11 && Self.failedForShutdown(outcomes[$0]))
                }
                guard !refused.isEmpty else {
                    return settle(group.positions.enumerated().map { ($0.element, outcomes[$0.offset]) })
                }
                self.fallBackToHTTP11(group.origin)
                // The messages the push service did not take over HTTP/2, again over HTTP/1.1.
                let again = Locked((answers: group.positions.enumerated().map { ($0.element, outcomes[$0.offset]) }, left: refused.count))
                for offset in refused {
                    self.sendOverHTTP11(group.requests[offset], origin: group.origin, deadline: deadline) { result in
                        let done: [(index: Int, result: Result<WebPushOutcome, TransportError>)]? = again.withLock { state in
                            state.answers[offset].1 = result
                            state.left -= 1
                            return state.left == 0 ? state.answers.map { (index: $0.0, result: $0.1) } : nil
                        }
                        if let done { settle(done) }
                    }
                }
            }
        }
    }

    /// Whether a result says the push service does not speak HTTP/2.
    private static func refusesHTTP2(_ result: Result<WebPushOutcome, TransportError>) -> Bool {
        if case let .failure(error) = result { return error.kind == .noHTTP2 }
        return false
    }

    /// Whether a result is a failure because the client was shut down.
    private static func failedForShutdown(_ result: Result<WebPushOutcome, TransportError>) -> Bool {
        if case let .failure(error) = result { return error.kind == .shutdown }
        return false
    }

    /// Remembers that `origin` speaks HTTP/1.1 only, and closes its HTTP/2 client.
    private func fallBackToHTTP11(_ origin: PushServiceOrigin) {
        http11Origins.withLock { _ = $0.insert(origin) }
        let client = clients.withLock { $0.removeValue(forKey: origin) }
        client?.shutdown()
    }

    /// One message (its body encrypted) over HTTP/1.1, with the origin's VAPID authorization.
    private func sendOverHTTP11(_ request: ProviderRequest, origin: PushServiceOrigin, deadline: ContinuousClock.Instant,
                                completion: @escaping @Sendable (Result<WebPushOutcome, TransportError>) -> Void) {
        let authorization: String
        do throws(VAPIDError) {
            authorization = try authorizer.authorization(for: origin)
        } catch {
            return completion(.failure(TransportError(.credentials, "VAPID signing failed: \(error)")))
        }
        let headers = ["Authorization: \(authorization)"] + request.headers.map { "\($0.name): \($0.value)" }
        let now = self.now
        http11.send(endpoint: request.token, headers: headers, body: Array(request.body),
                    timeout: max(.milliseconds(1), deadline - ContinuousClock.now)) { answer in
            completion(answer.map { answer in
                switch answer.status {
                case 200, 201, 202: .accepted(location: answer.location ?? "")
                default: .rejected(WebPushRejection(status: answer.status,
                                                    retryAfter: answer.retryAfter.flatMap { RetryAfter.duration($0, now: now()) }))
                }
            })
        }
    }

    /// Async form of `send(_:timeout:completion:)`.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil) async -> [Result<WebPushOutcome, TransportError>] {
        await withCheckedContinuation { continuation in
            send(requests, timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// A request ready to go (its body encrypted) over its origin's
    /// HTTP/2 client or over HTTP/1.1, or its result without sending.
    private enum Prepared {
        case send(PushServiceOrigin, ProviderClient<WebPushProvider>, ProviderRequest)
        case sendOverHTTP11(PushServiceOrigin, ProviderRequest)
        case answered(Result<WebPushOutcome, TransportError>)

        static func refused(_ rejection: WebPushRejection) -> Prepared { .answered(.success(.rejected(rejection))) }
    }

    /// The request's route and the request with its body encrypted, or why it is not sent.
    private func prepared(_ request: ProviderRequest, overHTTP11 http11: Set<PushServiceOrigin>) -> Prepared {
        let origin: PushServiceOrigin
        do throws(VAPIDError) {
            origin = try PushServiceOrigin(endpoint: request.token)
        } catch {
            return .answered(.success(.notSent(reason: "endpoint_not_usable")))
        }
        guard origin.serialized.hasPrefix("https://"), let transportOrigin = try? Origin(url: origin.serialized) else {
            return .answered(.success(.notSent(reason: "endpoint_not_usable")))
        }
        guard policy.admits(host: transportOrigin.host) else { return .answered(.success(.notSent(reason: "endpoint_host_not_allowed"))) }
        guard let keys = request.webPushKeys,
              let subscription = try? WebPushSubscriptionKeys(p256dh: keys.p256dh, auth: keys.auth) else {
            return .refused(.unusableKeys)
        }
        let body: [UInt8]
        do throws(WebPushError) {
            body = try WebPushEncryption.encrypt(Array(request.body), for: subscription)
        } catch {
            if case .payloadTooLarge = error { return .refused(WebPushRejection(status: 0, reason: "payload_too_large", verdict: .final)) }
            return .answered(.failure(TransportError(.credentials, "web push encryption failed: \(error)")))
        }
        var encrypted = request
        encrypted.body = ArraySlice(body)
        if http11.contains(origin) { return .sendOverHTTP11(origin, encrypted) }
        return clients.withLock { clients in
            if let client = clients[origin] { return .send(origin, client, encrypted) }
            guard clients.count < maximumOrigins else { return .refused(.tooManyOrigins) }
            do throws(TransportError) {
                let client = try ProviderClient(
                    provider: WebPushProvider(origin: origin, authorizer: authorizer, now: now), origin: transportOrigin, tls: tls,
                    connections: connections, requestTimeout: requestTimeout, options: options, backoff: Backoff(), loops: loops)
                clients[origin] = client
                return .send(origin, client, encrypted)
            } catch {
                return .answered(.failure(error))
            }
        }
    }
}
