import HTTP2Client
/// The access-token refresh rules as a value type: which token to hand out,
/// when to start a grant, what a finished grant changes, what an
/// invalidation forgets. ``AccessTokenCache`` runs it under a mutex; it has
/// no locks, no clock and no network, so it is tested on its own.
///
/// Rules:
/// - a token is handed out while `now < expiresAt - margin`, where `margin`
///   is the refresh margin, at most half the token's lifetime (so a token
///   that lives less than twice the margin is still used for half its life);
/// - inside the refresh margin the token is still valid: it is handed out
///   while one grant replaces it, so a slow or failing token endpoint costs
///   no send anything until the token actually expires;
/// - with no valid token one grant is started; callers arriving while it
///   runs join it;
/// - a grant's token expires `expires_in` seconds after the grant *started*
///   (a conservative bound: Google counts from when it issued the token);
/// - a failed grant leaves a still-valid (not yet expired) token in use,
///   else its error goes to every waiting caller;
/// - after a failed grant no new grant starts for a while (1 s, doubling
///   with each failure in a row up to 60 s, or the endpoint's Retry-After,
///   up to 300 s): callers get the last error at once instead of each
///   starting a grant against an endpoint that is down; the error says how
///   long is left (`retryAfter`), so a caller's retry waits for it;
/// - `invalidate(t)` forgets the current token only if it is `t`; but when
///   `t` was itself granted, less than `refusalMemory` ago, to replace a
///   refused token, a new one would be refused too (missing permission, a
///   disabled API): it is kept, and for `refusalMemory` refusals are final
///   instead of each one costing a grant.
struct AccessTokenCacheState: Sendable {
    /// A cached token and when it stops being valid.
    struct CachedToken: Sendable, Equatable {
        var token: String
        var expiresAt: Int64
        var margin: Int64
        /// When it was granted to replace a token FCM refused; nil otherwise.
        var replacedARefusalAt: Int64? = nil
    }

    /// What a caller does next.
    enum Decision: Equatable {
        /// Use this token now.
        case use(String)
        /// Use this still-valid token now, and start grant number `id` to
        /// replace it (it is inside its refresh margin); report that grant
        /// to ``finished(_:_:now:)``.
        case useAndRefresh(String, UInt64)
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
    /// How long, in seconds, a token granted to replace a refused one is
    /// suspected to be refused for the same reason; and how long refusals
    /// are then final.
    static let refusalMemory: Int64 = 60

    let refreshMargin: Int64
    private(set) var current: CachedToken?
    private(set) var inFlight: (id: UInt64, startedAt: Int64)?
    private(set) var grantCount = 0
    private(set) var failedGrantCount = 0
    private var lastID: UInt64 = 0
    /// After a failed grant: no new one before `until`; callers get `error`.
    private(set) var holdOff: (until: Int64, error: AccessTokenError)?
    private var failuresInARow = 0
    /// The next successful grant replaces a token FCM refused.
    private var nextGrantReplacesARefusal = false
    /// Until then, FCM's refusals of our tokens are final: a replacement
    /// was refused too.
    private(set) var refusalsFinalUntil: Int64?

    init(refreshMargin: Int64) {
        self.refreshMargin = max(0, refreshMargin)
    }

    /// The cached token when it is not yet due for refresh at `now`.
    func usableToken(now: Int64) -> String? {
        guard let current, now < current.expiresAt - current.margin else { return nil }
        return current.token
    }

    /// The cached token while it has not expired at `now`, inside its
    /// refresh margin included.
    func validToken(now: Int64) -> String? {
        guard let current, now < current.expiresAt else { return nil }
        return current.token
    }

    mutating func decide(now: Int64) -> Decision {
        if let token = usableToken(now: now) { return .use(token) }
        // Inside the refresh margin: the token is still good until it
        // expires; only a caller without one waits for a grant.
        let valid = validToken(now: now)
        if let inFlight { return valid.map(Decision.use) ?? .join(inFlight.id) }
        if let holdOff, now < holdOff.until {
            if let valid { return .use(valid) }
            var error = holdOff.error
            error.retryAfter = .seconds(holdOff.until - now)
            return .fail(error)
        }
        lastID += 1
        inFlight = (lastID, now)
        return valid.map { .useAndRefresh($0, lastID) } ?? .start(lastID)
    }

    /// For a caller that will not wait: the valid token, and the grant to
    /// start when it is due for refresh (as ``decide(now:)``); nil, changing
    /// nothing, when there is no valid token.
    mutating func tokenWithoutWaiting(now: Int64) -> (token: String, refresh: UInt64?)? {
        guard validToken(now: now) != nil else { return nil }
        switch decide(now: now) {
        case let .use(token): return (token, nil)
        case let .useAndRefresh(token, id): return (token, id)
        // With a valid token `decide` neither waits nor fails.
        case .join, .start, .fail: return nil
        }
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
                                  margin: min(refreshMargin, lifetime / 2),
                                  replacedARefusalAt: nextGrantReplacesARefusal ? now : nil)
            nextGrantReplacesARefusal = false
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
            held.retryAfter = .seconds(wait)
            holdOff = (now + wait, held)
            if let current, now < current.expiresAt { return .success(current.token) }
            return .failure(held)
        }
    }

    /// FCM refused `token` at `now`; returns whether sending again with a
    /// new token may help. Forgets the current token if it is `token`,
    /// unless it replaced a refused one moments ago (see the rules above).
    mutating func invalidate(_ token: String, now: Int64) -> Bool {
        if let until = refusalsFinalUntil {
            if now < until { return false }
            refusalsFinalUntil = nil
        }
        // An older token: the current one may well be taken.
        guard let current, current.token == token else { return true }
        if let replacedAt = current.replacedARefusalAt, now - replacedAt < Self.refusalMemory {
            refusalsFinalUntil = now + Self.refusalMemory
            return false
        }
        self.current = nil
        // A token refused inside its refresh margin may simply have expired
        // by Google's clock (it is handed out until the last second while
        // grants are held off): its successor is no suspect.
        nextGrantReplacesARefusal = now < current.expiresAt - current.margin
        return true
    }
}
