/// Where the FCM client gets the OAuth 2.0 access token for a request, and
/// what it reports when FCM refuses one: the seam DESIGN.md calls `TokenStore`, for FCM.
///
/// ``AccessTokenCache`` is the in-process implementation. Several gateway
/// replicas could share one through a store (Redis) by keeping this contract:
///
/// - hand out a cached token until shortly before it expires; fetch a new
///   one then, **once** for all concurrent callers, handing out the old one
///   while it is still valid;
/// - after ``invalidate(_:)`` of the token in use, the next call fetches a
///   new one (once); invalidating a token already replaced does nothing;
///   when a token fetched to replace a refused one is refused too,
///   ``invalidate(_:)`` answers false for a while (the cause is not the
///   token) rather than fetching on every refusal.
///
/// Thread-safety: implementations are `Sendable` and safe to call from many
/// tasks at once.
public protocol AccessTokenSource: Sendable {
    /// The access token to send now, fetching one when none is cached or the
    /// cached one is due for refresh.
    /// - Throws: ``AccessTokenError`` when none can be had (`isRetryable` says
    ///   whether to try later).
    func accessToken() async throws(AccessTokenError) -> String

    /// The cached access token when it is still valid; nil when getting one
    /// means waiting (no token yet, or expired). Never waits; may start the
    /// replacement of a token due for refresh.
    func accessTokenWithoutWaiting() -> String?

    /// FCM refused `token` (401/403 without an FcmError detail): forget it,
    /// so that the next ``accessToken()`` fetches a new one. Returns whether
    /// sending again with the next token may help (false: a new token was
    /// refused just as well; the refusal is final).
    @discardableResult
    func invalidate(_ token: String) -> Bool
}

extension AccessTokenSource {
    /// A source that cannot answer without waiting always sends the caller to ``accessToken()``.
    public func accessTokenWithoutWaiting() -> String? { nil }
}

/// Performs one token grant: the seam between the cache and the network.
///
/// ``ServiceAccountTokenFetcher`` posts a signed assertion to the service
/// account's `token_uri`; tests may count or fake grants.
public protocol AccessTokenFetcher: Sendable {
    /// Fetches a new access token, with `now` (epoch seconds) as the
    /// assertion's `iat`. Implementations read no clock.
    func fetch(now: Int64) async throws(AccessTokenError) -> AccessTokenGrant
}
