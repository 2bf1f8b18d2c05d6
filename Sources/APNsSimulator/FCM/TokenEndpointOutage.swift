/// The token endpoint set down: every grant is answered 503.
struct TokenEndpointOutage: Sendable {
    /// The `Retry-After` of the 503s, in seconds.
    var retryAfter: Int?
}
