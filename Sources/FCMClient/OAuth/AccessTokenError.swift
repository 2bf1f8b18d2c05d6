/// Why no OAuth 2.0 access token could be had.
///
/// `isRetryable` tells a transient failure (the token endpoint unreachable,
/// timing out, answering 429/5xx or garbage) from one that only a
/// configuration change fixes (the grant refused: wrong key, revoked
/// account, bad scope; the key cannot sign).
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an open set.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// No HTTP answer: DNS, connect, TLS, timeout, response too large (libcurl).
        public static let transport = Kind("transport")
        /// The token endpoint answered 429 or 5xx: try again later.
        public static let unavailable = Kind("unavailable")
        /// The token endpoint refused the grant (400/401/403, `invalid_grant`, …).
        public static let refused = Kind("refused")
        /// A 200 whose body is not a usable token response, or an unexpected status.
        public static let invalidResponse = Kind("invalid_response")
        /// The assertion could not be made (signing failed, bad lifetime).
        public static let signing = Kind("signing")
    }

    public let kind: Kind
    /// What happened, for logs: never key material or tokens.
    public var detail: String
    /// The token endpoint's HTTP status, when it answered.
    public var httpStatus: Int?
    /// The OAuth `error` code of a refusal (`invalid_grant`, `invalid_scope`, …).
    public var oauthError: String?
    /// The token endpoint's `Retry-After`, when it sent one.
    public var retryAfter: Duration?

    public init(_ kind: Kind, _ detail: String, httpStatus: Int? = nil, oauthError: String? = nil,
                retryAfter: Duration? = nil) {
        self.kind = kind
        self.detail = detail
        self.httpStatus = httpStatus
        self.oauthError = oauthError
        self.retryAfter = retryAfter
    }

    /// True when asking again later may succeed without a configuration change.
    public var isRetryable: Bool {
        [.transport, .unavailable, .invalidResponse].contains(kind)
    }

    public var description: String {
        var text = "OAuth access token \(kind): \(detail)"
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        return text
    }
}
