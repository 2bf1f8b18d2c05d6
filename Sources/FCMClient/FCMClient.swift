public import APNsHTTP2
#if canImport(Glibc)
import Glibc
#endif
public import PayloadBuilder

/// Sends messages rendered by PayloadBuilder to FCM HTTP v1
/// (`POST /v1/projects/{project}/messages:send`) over a pool of long-lived
/// HTTP/2 connections, authenticated with an OAuth 2.0 access token from an
/// ``AccessTokenSource``.
///
/// Returns a typed outcome per message: `accepted(name:)`, or `rejected`
/// with the FCM error code and the `ProviderVerdict` it calls for (drop the
/// token, retry after `Retry-After`, configuration error, final). A transport
/// failure is a `TransportError` (retryable where it says).
///
/// A 401 or 403 without an FcmError detail means our access token was
/// refused: the client invalidates it, gets a fresh one (one grant, shared)
/// and resends those messages once; a second refusal stays a rejection with
/// ``ProviderVerdict/configuration(detail:)``.
///
/// Thread-safety: `Sendable`; `send` may be called from many tasks at once.
public final class FCMClient: Sendable {
    /// Where messages go: `https://fcm.googleapis.com` or a simulator.
    public let origin: Origin
    /// The project this client sends for (from configuration or the service account).
    public let projectID: String
    private let pool: HTTP2ConnectionPool
    private let tokens: any AccessTokenSource
    private let requestTimeout: Duration
    private let now: @Sendable () -> Int64
    /// The `authorization` value, made once per access token.
    private let authorization = AuthorizationValues(scheme: "Bearer")

    /// - Parameters:
    ///   - baseURL: `https://fcm.googleapis.com` (``FCMTarget/production``) or a simulator.
    ///   - projectID: the FCM project (the service account's `project_id`).
    ///   - tokens: where access tokens come from (an ``AccessTokenCache``).
    ///   - connections: HTTP/2 connections in the pool.
    ///   - requestTimeout: per message, from `send` until the answer.
    ///   - loops: event loops to run the connections on, shared with their
    ///     owner (the gateway's, one per core); nil: the pool's own.
    ///   - now: the clock in epoch seconds, for `Retry-After` dates.
    public init(baseURL: String = FCMTarget.production, projectID: String, tls: TLSConfiguration = TLSConfiguration(),
                tokens: any AccessTokenSource, connections: Int = 1, requestTimeout: Duration = .seconds(10),
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff(),
                loops: [HTTP2EventLoop]? = nil,
                now: @escaping @Sendable () -> Int64 = AccessTokenCache.systemClock) throws(TransportError) {
        origin = try Origin(url: baseURL)
        self.projectID = projectID
        var options = options
        if options.keptResponseHeaders == nil { options.keptResponseHeaders = ["retry-after"] }
        pool = try HTTP2ConnectionPool(host: origin.host, port: origin.port, tls: tls, connections: connections,
                                       options: options, backoff: backoff, loops: loops)
        self.tokens = tokens
        self.requestTimeout = requestTimeout
        self.now = now
    }

    /// A client for `serviceAccount`'s project, with an ``AccessTokenCache``
    /// that fetches from the account's `token_uri`.
    public convenience init(serviceAccount: ServiceAccount, baseURL: String = FCMTarget.production,
                            tls: TLSConfiguration = TLSConfiguration(),
                            tokenEndpoint: TokenEndpointConfiguration = TokenEndpointConfiguration(),
                            connections: Int = 1, requestTimeout: Duration = .seconds(10)) throws(TransportError) {
        try self.init(baseURL: baseURL, projectID: serviceAccount.projectID, tls: tls,
                      tokens: AccessTokenCache(serviceAccount: serviceAccount, configuration: tokenEndpoint),
                      connections: connections, requestTimeout: requestTimeout)
    }

    /// Open connections, for tests and metrics.
    public var openConnections: Int { pool.openConnections }

    /// Sends one rendered FCM request and classifies the answer.
    public func send(_ request: ProviderRequest) async throws(TransportError) -> FCMOutcome {
        try await send([request])[0].get()
    }

    /// Sends rendered FCM requests together (one event's devices) and
    /// classifies each answer. Requests whose access token FCM refused are
    /// sent once more with a fresh token. Each request's `path`, headers and
    /// body go to this client's origin (its `origin` is not consulted), with
    /// `authorization: Bearer <access token>` added. Every request ends with
    /// exactly one result, in order.
    public func send(_ requests: [ProviderRequest]) async -> [Result<FCMOutcome, TransportError>] {
        await withCheckedContinuation { continuation in
            send(requests) { continuation.resume(returning: $0) }
        }
    }

    /// As `send(_:)`, calling `completion` instead of suspending a task: with
    /// a cached access token the results come from a connection's thread; a
    /// task is only started to fetch a token or to re-send after FCM refused it.
    ///
    /// - Parameter timeout: the time every request has, waiting for an access
    ///   token and re-sends included (a caller's deadline); the client's
    ///   request timeout when shorter or nil.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil,
                     completion: @escaping @Sendable ([Result<FCMOutcome, TransportError>]) -> Void) {
        guard !requests.isEmpty else { return completion([]) }
        let deadline = ContinuousClock.now + min(timeout ?? requestTimeout, requestTimeout)
        if let token = tokens.accessTokenWithoutWaiting() {
            return send(requests, token: token, deadline: deadline, completion: completion)
        }
        Task {
            switch await accessToken(before: deadline) {
            case let .success(token):
                send(requests, token: token, deadline: deadline, completion: completion)
            case let .failure(error):
                completion(Array(repeating: .failure(error), count: requests.count))
            }
        }
    }

    /// An access token, or `accessTokenUnavailable` once `deadline` passes
    /// (the grant goes on, for later sends).
    private func accessToken(before deadline: ContinuousClock.Instant) async -> Result<String, TransportError> {
        let tokens = tokens
        return await firstBeforeDeadline(deadline, {
            do throws(AccessTokenError) {
                return .success(try await tokens.accessToken())
            } catch {
                return .failure(TransportError(accessToken: error))
            }
        }, orElse: { .failure(TransportError(.accessTokenUnavailable, "no FCM access token before the request's deadline")) })
    }

    private func send(_ requests: [ProviderRequest], token: String, deadline: ContinuousClock.Instant,
                      completion: @escaping @Sendable ([Result<FCMOutcome, TransportError>]) -> Void) {
        pool.send(httpRequests(requests, token: token, deadline: deadline)) { responses in
            let outcomes = Self.classify(responses, now: self.now())
            guard outcomes.contains(where: Self.isAccessTokenRejection) else { return completion(outcomes) }
            Task {
                completion(await self.retryingAccessTokenRejections(requests, outcomes: outcomes, token: token, deadline: deadline))
            }
        }
    }

    /// Sends the requests whose access token FCM refused once more, with a fresh token.
    private func retryingAccessTokenRejections(_ requests: [ProviderRequest], outcomes: [Result<FCMOutcome, TransportError>],
                                               token: String, deadline: ContinuousClock.Instant) async -> [Result<FCMOutcome, TransportError>] {
        var outcomes = outcomes
        let refused = outcomes.indices.filter { Self.isAccessTokenRejection(outcomes[$0]) }
        // A token fetched to replace a refused one was refused too: the
        // cause is a permission or a disabled API, which no new token fixes.
        guard !refused.isEmpty, tokens.invalidate(token) else { return outcomes }
        let freshToken: String
        switch await accessToken(before: deadline) {
        case let .success(token):
            freshToken = token
        case let .failure(error):
            for index in refused { outcomes[index] = .failure(error) }
            return outcomes
        }
        let retried = Self.classify(await pool.send(httpRequests(refused.map { requests[$0] }, token: freshToken, deadline: deadline)),
                                    now: now())
        for (position, index) in refused.enumerated() { outcomes[index] = retried[position] }
        return outcomes
    }

    private static func isAccessTokenRejection(_ outcome: Result<FCMOutcome, TransportError>) -> Bool {
        if case .success(.rejected(let rejection)) = outcome { return rejection.isAboutTheAccessToken }
        return false
    }

    /// Closes the connections.
    public func shutdown() {
        pool.shutdown()
    }

    /// The access token goes in the connection's `authorization` field: an
    /// HPACK literal never indexed (a credential), and no per-request copy
    /// of the rendered header list.
    private func httpRequests(_ requests: [ProviderRequest], token: String, deadline: ContinuousClock.Instant) -> HTTP2Requests {
        let authorization = authorization.value(for: token)
        let timeout = max(.zero, deadline - ContinuousClock.now)
        // Read in place as rendered, unless one carries an `authorization`
        // header of its own: the requests then go without it.
        guard requests.contains(where: { $0.headers.contains { $0.name == "authorization" } }) else {
            return HTTP2Requests(rendered: requests, authorization: authorization, timeout: timeout)
        }
        return HTTP2Requests(requests.map { request in
            HTTP2Request(method: "POST", path: request.path, authorization: authorization,
                         headers: request.headers.filter { $0.name != "authorization" }, body: request.body, timeout: timeout)
        })
    }

    private static func classify(_ responses: [Result<HTTP2Response, TransportError>], now: Int64) -> [Result<FCMOutcome, TransportError>] {
        responses.map { result in
            result.map { response in
                guard response.status == 200 else {
                    return .rejected(FCMRejection(status: response.status, body: response.body,
                                                  retryAfterHeader: response.header("retry-after"), now: now))
                }
                return .accepted(name: messageName(response.body))
            }
        }
    }

    /// `name` of `{"name":"projects/…/messages/…"}`; empty when absent.
    static func messageName(_ body: [UInt8]) -> String {
        if let name = plainMessageName(body) { return name }
        if let document = try? JSONParser.parse(body), case .string(let name)? = document["name"] { return name }
        return ""
    }

    /// The answer FCM gives to almost every send, `{"name": "<plain ASCII>"}`
    /// with any whitespace, read without building a JSON tree; nil for
    /// anything else (more members, escapes, not an object), which the full
    /// parser then reads.
    static func plainMessageName(_ body: [UInt8]) -> String? {
        body.withUnsafeBufferPointer { bytes -> String? in
            var index = 0
            func skipBlanks() {
                while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                    index += 1
                }
            }
            func take(_ expected: StaticString) -> Bool {
                let count = expected.utf8CodeUnitCount
                guard index + count <= bytes.count,
                      memcmp(bytes.baseAddress! + index, expected.utf8Start, count) == 0 else { return false }
                index += count
                return true
            }
            skipBlanks()
            guard take("{") else { return nil }
            skipBlanks()
            guard take("\"name\"") else { return nil }
            skipBlanks()
            guard take(":") else { return nil }
            skipBlanks()
            guard take("\"") else { return nil }
            let start = index
            while index < bytes.count, bytes[index] != 0x22 {
                // Escapes, control characters and non-ASCII: leave them to the parser.
                if bytes[index] == 0x5C || bytes[index] < 0x20 || bytes[index] >= 0x80 { return nil }
                index += 1
            }
            guard index < bytes.count else { return nil }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            skipBlanks()
            guard take("}") else { return nil }
            skipBlanks()
            return index == bytes.count ? name : nil
        }
    }
}
