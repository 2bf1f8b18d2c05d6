public import EventLoops
public import HTTP2Client
import PayloadBuilder

/// Sends notifications rendered by PayloadBuilder to APNs over a pool of
/// long-lived HTTP/2 connections, with ES256 provider-token authentication:
/// the shared `ProviderClient` with APNs's part, `APNsProvider`.
///
/// Returns a typed outcome per notification: `accepted` or `rejected` with
/// the reason and its `ProviderVerdict` (drop the token, retry,
/// configuration error, final). A transport failure is a `TransportError`
/// (retryable where it says). On `ExpiredProviderToken` the token source
/// decides whether a new token is minted; if so the notification is sent
/// once more with it.
public typealias APNsClient = ProviderClient<APNsProvider>

extension ProviderClient where Provider == APNsProvider {
    /// - Parameters:
    ///   - origin: `https://api.push.apple.com`, the sandbox, or a simulator.
    ///   - loops: event loops to run the connections on, shared with their
    ///     owner (the gateway's, one per core); nil: the pool's own.
    ///   - now: the clock for provider tokens, in epoch seconds.
    public convenience init(origin: String, tls: TLSConfiguration = TLSConfiguration(), tokens: any ProviderTokenSource,
                            connections: Int = 1, requestTimeout: Duration = .seconds(10),
                            options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(), backoff: Backoff = Backoff(),
                            loops: [EventLoop]? = nil, now: @escaping @Sendable () -> Int64) throws(TransportError) {
        var options = options
        if options.keptResponseHeaders == nil { options.keptResponseHeaders = ["apns-id", "retry-after"] }
        // PROTOCOLS.md (HPACK): values that change per request are literals
        // kept out of APNs's small dynamic table.
        options.requestHeadersIndexedOnce += ["apns-id", "apns-expiration", "apns-collapse-id"]
        options.retiresConnection = APNsProvider.asksForANewConnection
        try self.init(provider: APNsProvider(tokens: tokens, now: now), origin: Origin(url: origin), tls: tls,
                      connections: connections, requestTimeout: requestTimeout, options: options, backoff: backoff, loops: loops)
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
        let reason = reason.rawValue
        let bytes = reason.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return Self.providerTokenReasons.contains { $0.rawValue == reason }
        }
        return Self.providerTokenReasonBytes.contains { candidate in
            candidate.count == bytes.count && candidate.elementsEqual(bytes)
        }
    }

    private static let providerTokenReasons: [APNsReason] = [
        .expiredProviderToken, .tooManyProviderTokenUpdates, .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken,
    ]
    /// `providerTokenReasons` as bytes (all ASCII, none empty).
    private static let providerTokenReasonBytes: [[UInt8]] = providerTokenReasons.map { Array($0.rawValue.utf8) }
}
