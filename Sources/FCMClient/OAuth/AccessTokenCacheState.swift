/// The access-token refresh rules as a value type: which token to hand out,
/// when to start a grant, what a finished grant changes, what an
/// invalidation forgets. ``AccessTokenCache`` runs it under a mutex; it has
/// no locks, no clock and no network, so it is tested on its own.
///
/// Rules:
/// - a token is handed out while `now < expiresAt - margin`, where `margin`
///   is the refresh margin, at most half the token's lifetime (so a token
///   that lives less than twice the margin is still used for half its life);
/// - otherwise one grant is started; callers arriving while it runs join it;
/// - a grant's token expires `expires_in` seconds after the grant *started*
///   (a conservative bound: Google counts from when it issued the token);
/// - a failed grant leaves a still-valid (not yet expired) token in use,
///   else its error goes to every waiting caller;
/// - after a failed grant no new grant starts for a while (1 s, doubling
///   with each failure in a row up to 60 s, or the endpoint's Retry-After,
///   up to 300 s): callers get the last error at once instead of each
///   starting a grant against an endpoint that is down;
/// - `invalidate(t)` forgets the current token only if it is `t`.
struct AccessTokenCacheState: Sendable {
    /// A cached token and when it stops being valid.
    struct CachedToken: Sendable, Equatable {
        var token: String
        var expiresAt: Int64
        var margin: Int64
    }

    /// What a caller does next.
    enum Decision: Equatable {
        /// Use this token now.
        case use(String)
        /// Wait for the grant in flight, number `id`.
        case join(UInt64)
        /// Start grant number `id` (then report it to ``finished(_:_:)``).
        case start(UInt64)
        /// A grant failed moments ago: fail with its error, start none.
        case fail(AccessTokenError)
    }

    /// The longest wait between failed grants, and the most of a
    /// Retry-After that is honoured, in seconds.
    static let maximumBackoff: Int64 = 60
    static let maximumRetryAfter: Int64 = 300

    let refreshMargin: Int64
    private(set) var current: CachedToken?
    private(set) var inFlight: (id: UInt64, startedAt: Int64)?
    private(set) var grantCount = 0
    private(set) var failedGrantCount = 0
    private var lastID: UInt64 = 0
    /// After a failed grant: no new one before `until`; callers get `error`.
    private(set) var holdOff: (until: Int64, error: AccessTokenError)?
    private var failuresInARow = 0

    init(refreshMargin: Int64) {
        self.refreshMargin = max(0, refreshMargin)
    }

    /// The cached token when it is not yet due for refresh at `now`.
    func usableToken(now: Int64) -> String? {
        guard let current, now < current.expiresAt - current.margin else { return nil }
        return current.token
    }

    mutating func decide(now: Int64) -> Decision {
        if let token = usableToken(now: now) { return .use(token) }
        if let inFlight { return .join(inFlight.id) }
        if let holdOff, now < holdOff.until {
            // A token inside its refresh margin is still good until it expires.
            if let current, now < current.expiresAt { return .use(current.token) }
            return .fail(holdOff.error)
        }
        lastID += 1
        inFlight = (lastID, now)
        return .start(lastID)
    }

    /// Grant `id` ended with `result` at `now`; returns what its callers get.
    mutating func finished(_ id: UInt64, _ result: Result<AccessTokenGrant, AccessTokenError>,
                           now: Int64) -> Result<String, AccessTokenError> {
        let startedAt = inFlight?.id == id ? inFlight!.startedAt : now
        if inFlight?.id == id { inFlight = nil }
        switch result {
        case .success(let grant):
            grantCount += 1
            failuresInARow = 0
            holdOff = nil
            let lifetime = max(0, grant.expiresIn)
            current = CachedToken(token: grant.accessToken, expiresAt: startedAt + lifetime,
                                  margin: min(refreshMargin, lifetime / 2))
            return .success(grant.accessToken)
        case .failure(let error):
            failedGrantCount += 1
            failuresInARow += 1
            let backoff = min(Self.maximumBackoff, Int64(1) << min(failuresInARow - 1, 6))
            // Capped as a Duration first: a huge Retry-After must not overflow the conversion.
            let asked = error.retryAfter.map { Int64(max(0, (min($0, .seconds(Self.maximumRetryAfter)) / .seconds(1)).rounded(.up))) } ?? 0
            let wait = max(backoff, asked)
            var held = error
            held.detail = "\(error.detail); no new grant for \(wait) s after a failure"
            holdOff = (now + wait, held)
            if let current, now < current.expiresAt { return .success(current.token) }
            return .failure(error)
        }
    }

    /// Forgets the current token if it is `token`.
    mutating func invalidate(_ token: String) {
        if current?.token == token { current = nil }
    }
}
