public import APNsHTTP2

extension TransportError.Kind {
    /// No OAuth access token could be had right now (the token endpoint is
    /// unreachable, slow or answering 429/5xx): nothing was sent to FCM;
    /// retry later. Retryable (`isRetryable` is true for it).
    public static let accessTokenUnavailable = TransportError.Kind("access_token_unavailable")
}

extension TransportError {
    /// The transport error for a message that could not be sent because no
    /// access token could be had: `accessTokenUnavailable` (retryable) for a
    /// transient token-endpoint problem, `credentials` (not retryable) when
    /// the grant was refused or the assertion could not be signed.
    init(accessToken error: AccessTokenError) {
        self.init(error.isRetryable ? .accessTokenUnavailable : .credentials, "no FCM access token: \(error)")
    }
}
