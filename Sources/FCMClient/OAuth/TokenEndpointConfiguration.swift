public import NetworkSockets

/// How grants are requested from a service account's `token_uri`.
/// A `Sendable` value with production defaults.
public struct TokenEndpointConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's
    /// (the simulator's throwaway CA in tests).
    public var caFile: String?
    /// The scopes asked for (space-separated).
    public var scope: String = ServiceAccount.firebaseMessagingScope
    /// `exp - iat` of each assertion, 1…3600 seconds.
    public var assertionLifetime: Int64 = ServiceAccount.maximumAssertionLifetime
    /// DNS + TCP + TLS budget.
    public var connectTimeout: Duration = .seconds(10)
    /// Budget for the whole grant request.
    public var timeout: Duration = .seconds(30)
    /// A larger token response fails the grant (real ones are under 2 KiB).
    public var maximumResponseBytes = 64 * 1024
    /// Direct, or through the outbound proxy (a `CONNECT` tunnel), decided
    /// for the `token_uri`'s host.
    public var route: ProxyRoute = .direct

    public init(caFile: String? = nil) {
        self.caFile = caFile
    }
}
