/// Where a transport gets the APNs provider token (JWT) for a request, and
/// what it asks when APNs rejects one: the seam DESIGN.md calls `TokenStore`.
///
/// ``ProviderTokenCache`` is the in-process implementation. With several
/// gateway replicas sharing one key, ``FleetProviderTokenCache`` keeps the
/// whole fleet on one token through a ``SharedProviderTokenStore`` (the
/// `TokenStore` of DESIGN.md); both keep the contract below.
///
/// Contract (Apple, "Establishing a token-based connection to APNs"):
/// - reuse a token; mint **at most once per 20 minutes** per key
///   (else `429 TooManyProviderTokenUpdates`) and **at least once per
///   60 minutes** (else `403 ExpiredProviderToken`);
/// - time comes only from `now` (seconds since the epoch): implementations
///   read no clock, so tests and simulations control it.
///
/// Thread-safety: implementations are `Sendable` and must be safe to call
/// from many connections at once.
public protocol ProviderTokenSource: Sendable {
    /// The JWT to send now as `authorization: bearer <token>`, minting a new
    /// one only when the current one is due for refresh.
    /// - Throws: when no token can be produced (e.g. signing failed).
    func token(now: Int64) throws(ProviderTokenError) -> String

    /// APNs rejected `token` with `reason`; says whether to resend the
    /// request, and with which token. The caller retries **at most once**.
    func tokenWasRejected(_ token: String, reason: APNsReason, now: Int64) -> ProviderTokenRefreshDecision
}

/// What to do with a request whose provider token APNs rejected
/// (the answer of ``ProviderTokenSource/tokenWasRejected(_:reason:now:)``).
public enum ProviderTokenRefreshDecision: Sendable, Equatable {
    /// A newer token than the rejected one exists (minted for this rejection,
    /// or earlier for a concurrent one): resend the request once with it.
    case retryWithNewToken(String)
    /// Keep the current token — minting now would break the 20-minute rule —
    /// and resend once with it after the transport's usual 429 back-off.
    case retryWithCurrentToken(String)
    /// Don't resend: a configuration problem to alert on.
    case doNotRetry(ProviderTokenProblem)
    /// The reason is not about the provider token (e.g. `UnrelatedKeyIdInToken`,
    /// `BadDeviceToken`); the transport's own reason table applies.
    case notATokenProblem
}

/// A provider-token problem that retrying cannot fix.
public enum ProviderTokenProblem: Sendable, Equatable, CustomStringConvertible {
    /// APNs called a token expired that is younger than 20 minutes by our
    /// clock: one of the two clocks is wrong by over 40 minutes.
    case clockSkew(tokenAgeSeconds: Int64)
    /// APNs refused the credentials themselves (`InvalidProviderToken`,
    /// `MissingProviderToken`, `BadEnvironmentKeyIdInToken`): wrong key,
    /// key ID, team ID or environment.
    case credentialsRejected(APNsReason)
    /// A replacement token was needed but could not be signed.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .clockSkew(let age):
            return "configuration error: check the clock (APNs says the provider token expired, but it was issued \(age) s ago by our clock)"
        case .credentialsRejected(let reason):
            return "configuration error: APNs rejected the provider token credentials (\(reason)); check the key, key ID, team ID and environment"
        case .signingFailed(let detail):
            return "could not sign a new provider token: \(detail)"
        }
    }
}
