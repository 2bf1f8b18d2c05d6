/// Where the FCM client gets the OAuth 2.0 access token for a request, and
/// what it reports when FCM refuses one: the seam DESIGN.md calls `TokenStore`, for FCM.
///
/// ``AccessTokenCache`` is the in-process implementation. Several gateway
/// replicas could share one through a store (Redis) by keeping this contract:
///
/// - hand out a cached token until shortly before it expires; fetch a new
///   one then, **once** for all concurrent callers;
/// - after ``invalidate(_:)`` of the token in use, the next call fetches a
///   new one (once); invalidating a token already replaced does nothing.
///
/// Thread-safety: implementations are `Sendable` and safe to call from many
/// tasks at once.
public protocol AccessTokenSource: Sendable {
    /// The access token to send now, fetching one when none is cached or the
    /// cached one is due for refresh.
    /// - Throws: ``AccessTokenError`` when none can be had (`isRetryable` says
    ///   whether to try later).
    func accessToken() async throws(AccessTokenError) -> String

    /// The cached access token when it is good to use now; nil when getting
    /// one means waiting (no token yet, or due for refresh). Never fetches.
    func accessTokenWithoutWaiting() -> String?

    /// FCM refused `token` (401/403 without an FcmError detail): forget it,
    /// so that the next ``accessToken()`` fetches a new one.
    func invalidate(_ token: String)
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
