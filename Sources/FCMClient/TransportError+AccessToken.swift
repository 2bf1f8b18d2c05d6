import HTTP2Client

extension TransportError {
    /// The transport error for a message that could not be sent because no
    /// access token could be had: `accessTokenUnavailable` (retryable) for a
    /// transient token-endpoint problem, `credentials` (not retryable) when
    /// the grant was refused or the assertion could not be signed. The
    /// cache's hold-off (or the endpoint's Retry-After) is kept, so that a
    /// retry waits until a new grant can be tried.
    init(accessToken error: AccessTokenError) {
        self.init(error.isRetryable ? .accessTokenUnavailable : .credentials, "no FCM access token: \(error)",
                  retryAfter: error.retryAfter)
    }
}
