#if canImport(Glibc)
import Glibc
#endif
public import PayloadBuilder

/// Sends notifications rendered by PayloadBuilder to APNs over a pool of
/// long-lived HTTP/2 connections, with ES256 provider-token authentication.
///
/// Returns a typed outcome per notification: `accepted` or `rejected` with
/// the reason and its `ProviderVerdict` (drop the token, retry,
/// configuration error, final). A
/// transport failure is thrown as `TransportError` (retryable where it says).
/// On `ExpiredProviderToken` the token source decides whether a new token is
/// minted; if so the notification is sent once more with it.
public final class APNsClient: Sendable {
    public let origin: Origin
    private let pool: HTTP2ConnectionPool
    private let tokens: any ProviderTokenSource
    private let requestTimeout: Duration
    private let now: @Sendable () -> Int64
    /// The `authorization` value, made once per provider token.
    private let authorization = AuthorizationValues(scheme: "bearer")

    /// - Parameters:
    ///   - origin: `https://api.push.apple.com`, the sandbox, or a simulator.
    ///   - loops: event loops to run the connections on, shared with their
    ///     owner (the gateway's, one per core); nil: the pool's own.
    ///   - now: the clock for provider tokens, in epoch seconds.
    public init(origin: String, tls: TLSConfiguration = TLSConfiguration(), tokens: any ProviderTokenSource,
                connections: Int = 1, requestTimeout: Duration = .seconds(10),
                options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff(),
                loops: [HTTP2EventLoop]? = nil, now: @escaping @Sendable () -> Int64) throws(TransportError) {
        self.origin = try Origin(url: origin)
        var options = options
        if options.keptResponseHeaders == nil { options.keptResponseHeaders = ["apns-id", "retry-after"] }
        // PROTOCOLS.md (HPACK): values that change per request are literals
        // kept out of APNs's small dynamic table.
        options.requestHeadersIndexedOnce += ["apns-id", "apns-expiration", "apns-collapse-id"]
        options.retiresConnection = Self.asksForANewConnection
        pool = try HTTP2ConnectionPool(host: self.origin.host, port: self.origin.port, tls: tls,
                                       connections: connections, options: options, backoff: backoff, loops: loops)
        self.tokens = tokens
        self.requestTimeout = requestTimeout
        self.now = now
    }

    /// Open connections (tests wait on it).
    public var openConnections: Int { pool.openConnections }

    /// Sends one rendered APNs request and classifies the answer.
    public func send(_ request: ProviderRequest) async throws(TransportError) -> APNsOutcome {
        try await send([request])[0].get()
    }

    /// Sends rendered APNs requests together (one event's devices) and
    /// classifies each answer. Requests rejected for their provider token are
    /// sent once more when the token source mints a new token.
    public func send(_ requests: [ProviderRequest]) async -> [Result<APNsOutcome, TransportError>] {
        await withCheckedContinuation { continuation in
            send(requests) { continuation.resume(returning: $0) }
        }
    }

    /// As `send(_:)`, calling `completion` instead of suspending a task: from
    /// a connection's thread when every answer is in (a task is only started
    /// to re-send after a provider-token rejection or a lost connection).
    ///
    /// - Parameter timeout: the time every request has, re-sends included
    ///   (a caller's deadline); the client's request timeout when shorter or nil.
    public func send(_ requests: [ProviderRequest], timeout: Duration? = nil,
                     completion: @escaping @Sendable ([Result<APNsOutcome, TransportError>]) -> Void) {
        let token: String
        do {
            token = try providerToken()
        } catch {
            return completion(Array(repeating: .failure(error), count: requests.count))
        }
        let deadline = ContinuousClock.now + min(timeout ?? requestTimeout, requestTimeout)
        pool.send(httpRequests(requests, token: token, deadline: deadline)) { responses in
            let (outcomes, rejectsToken) = self.classify(requests, responses)
            guard rejectsToken else { return completion(outcomes) }
            Task {
                completion(await self.retryingTokenRejections(requests, outcomes: outcomes, token: token, deadline: deadline))
            }
        }
    }

    /// Asks the token source about each provider-token rejection in
    /// `outcomes`; sends those requests once more when it mints a new token.
    private func retryingTokenRejections(_ requests: [ProviderRequest], outcomes: [Result<APNsOutcome, TransportError>],
                                         token: String, deadline: ContinuousClock.Instant) async -> [Result<APNsOutcome, TransportError>] {
        var outcomes = outcomes
        var retryIndices: [Int] = []
        var retryToken: String?
        for (index, outcome) in outcomes.enumerated() {
            guard case let .success(.rejected(rejection)) = outcome, rejection.isAboutTheProviderToken else { continue }
            switch tokens.tokenWasRejected(token, reason: rejection.reason, now: now()) {
            case let .retryWithNewToken(newToken):
                retryToken = newToken
                retryIndices.append(index)
            case .retryWithCurrentToken, .notATokenProblem:
                break
            case let .doNotRetry(problem):
                var final = rejection
                final.verdict = .configuration(detail: problem.description)
                outcomes[index] = .success(.rejected(final))
            }
        }
        if let retryToken, !retryIndices.isEmpty {
            let retried = retryIndices.map { requests[$0] }
            let answers = classify(retried, await pool.send(httpRequests(retried, token: retryToken, deadline: deadline))).outcomes
            for (position, index) in retryIndices.enumerated() { outcomes[index] = answers[position] }
        }
        return outcomes
    }

    /// PROTOCOLS.md A5: retry `UnrelatedKeyIdInToken` and `IdleTimeout` on
    /// a new connection, and use a new connection after `Shutdown`; and
    /// after `TooManyProviderTokenUpdates` (see below).
    ///
    /// Only the body's reason is read (on the loop thread, for every non-200
    /// answer): the reasons that ask for it come from Apple's table alone, never
    /// from the fallback on the status, so an answer without a reason never does.
    static let asksForANewConnection: @Sendable (HTTP2Response) -> Bool = { response in
        guard let reason = APNsRejection.Body(response.body).reason else { return false }
        // TooManyProviderTokenUpdates: the connection took up the shared token
        // shortly before it was replaced (APNs counts updates per connection,
        // PROTOCOLS.md A4); a fresh connection takes the new one as its first.
        return reason == APNsReason.unrelatedKeyIDInToken.rawValue || reason == APNsReason.idleTimeout.rawValue
            || reason == APNsReason.shutdown.rawValue || reason == APNsReason.tooManyProviderTokenUpdates.rawValue
    }

    /// Closes the connections.
    public func shutdown() {
        pool.shutdown()
    }

    private func providerToken() throws(TransportError) -> String {
        do throws(ProviderTokenError) {
            return try tokens.token(now: now())
        } catch {
            throw TransportError(.credentials, "cannot make an APNs provider token: \(error)")
        }
    }

    /// The rendered requests as the pool sends them: read in place, with
    /// the token's `authorization` and the time left until `deadline` shared
    /// by all (no request copied per send).
    private func httpRequests(_ requests: [ProviderRequest], token: String, deadline: ContinuousClock.Instant) -> HTTP2Requests {
        HTTP2Requests(rendered: requests, authorization: authorization.value(for: token), timeout: max(.zero, deadline - ContinuousClock.now))
    }

    /// The outcome of each answer, and whether any is a rejection of the
    /// provider token (asked of each rejection as it is made, not of the
    /// outcomes afterwards, which would copy each one out).
    private func classify(_ requests: [ProviderRequest], _ responses: [Result<HTTP2Response, TransportError>])
        -> (outcomes: [Result<APNsOutcome, TransportError>], rejectsToken: Bool) {
        // By index: a request is read in place (not copied, with its strings,
        // headers and body) and only when the answer lacks its apns-id. The
        // connection layer gives one result per request, in order.
        precondition(requests.count == responses.count, "\(responses.count) results for \(requests.count) requests")
        var rejectsToken = false
        let outcomes = requests.withUnsafeBufferPointer { requests in
            responses.withUnsafeBufferPointer { responses in
                responses.indices.map { index -> Result<APNsOutcome, TransportError> in
                    switch responses[index] {
                    case let .failure(error):
                        return .failure(error)
                    case let .success(response):
                        let apnsID = response.header("apns-id") ?? Self.apnsID(in: requests[index].headers)
                        if response.status == 200 { return .success(.accepted(apnsID: apnsID ?? "")) }
                        let rejection = APNsRejection(response: response, apnsID: apnsID, now: now())
                        if !rejectsToken, rejection.isAboutTheProviderToken { rejectsToken = true }
                        return .success(.rejected(rejection))
                    }
                }
            }
        }
        return (outcomes, rejectsToken)
    }

    /// The first `apns-id` header's value; names of another length are passed
    /// over without a string comparison.
    static func apnsID(in headers: [HTTPHeader]) -> String? {
        HTTP2Response.value(of: "apns-id", in: headers)
    }
}

extension APNsRejection {
    /// Reads `{"reason": "...", "timestamp": ms}` from an APNs error response;
    /// a `Retry-After` date is read against `now` (epoch seconds).
    init(response: HTTP2Response, apnsID: String?, now: Int64) {
        let body = Body(response.body)
        if let reason = body.reason {
            self.init(status: response.status, reason: APNsReason(reason), timestamp: body.timestamp, apnsID: apnsID)
        } else {
            // No reason: named after the status, which alone decides (no
            // documented reason is called `Status…`, so the table is not asked).
            self.init(status: response.status, reason: APNsReason(Self.statusReason(response.status)), timestamp: body.timestamp,
                      apnsID: apnsID, verdict: APNsReason.verdictForUnlistedReason(status: response.status))
        }
        if case .retry = verdict, let after = response.header("retry-after").flatMap({ RetryAfter.duration($0, now: now) }) {
            verdict = .retry(after: after)
        }
    }

    /// `Status` and the status code: the reason of an answer that gives none.
    static func statusReason(_ status: Int) -> String {
        (100...999).contains(status) ? threeDigitStatusReasons[status - 100] : "Status" + String(status)
    }

    /// `statusReason` of every three-digit status (every HTTP status), made
    /// once: an answer without a reason formats no number.
    private static let threeDigitStatusReasons = (100...999).map { "Status" + String($0) }

    /// What an APNs error body (`{"reason": "...", "timestamp": ms}`) says.
    struct Body {
        var reason: String?
        var timestamp: Int64?

        init(_ bytes: [UInt8]) {
            // Only an object has members: a body that cannot be one (an HTML
            // error page from a proxy) is not parsed (the parser's error
            // message alone costs more than the rest of the answer).
            guard Self.mayBeObject(bytes), let document = try? JSONParser.parse(bytes) else { return }
            if case let .string(text)? = document["reason"] { reason = text }
            if case let .int(milliseconds)? = document["timestamp"] { timestamp = milliseconds }
        }

        /// Whether the first byte after JSON whitespace (RFC 8259) opens an object.
        static func mayBeObject(_ bytes: [UInt8]) -> Bool {
            for byte in bytes {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                default: return byte == UInt8(ascii: "{")
                }
            }
            return false
        }
    }

    /// True for the reasons that are about the provider token itself.
    var isAboutTheProviderToken: Bool {
        // Asked of every rejection: a scan of five, no hashing of the reason.
        // The answer must be `==`'s, as the reason table's lookup compares
        // (canonical equivalence), so that the two always agree. The five are
        // ASCII, and an ASCII string is `==` to another ASCII string exactly
        // when their bytes are equal: an ASCII reason (every real one) is
        // compared as bytes, lengths first; any other with `==`.
        var reason = reason.rawValue
        let byBytes = reason.withUTF8 { bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return Self.providerTokenReasonBytes.contains { candidate in
                candidate.count == bytes.count && candidate.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            }
        }
        return byBytes ?? Self.providerTokenReasons.contains { $0.rawValue == reason }
    }

    private static let providerTokenReasons: [APNsReason] = [
        .expiredProviderToken, .tooManyProviderTokenUpdates, .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken,
    ]
    /// `providerTokenReasons` as bytes (all ASCII, none empty).
    private static let providerTokenReasonBytes: [[UInt8]] = providerTokenReasons.map { Array($0.rawValue.utf8) }
}
