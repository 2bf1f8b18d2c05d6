/// The rules of ``FleetProviderTokenCache`` as a value type: which token the
/// hot path hands out, what a background refresh asks the shared store next
/// (returned as an ``Action``), which token a replica adopts, publishes or
/// mints, and what to answer to a rejection. It has no store, no lock and no
/// clock: answers and times are arguments, and minting is injected
/// (`mint(issuedAt) -> jwt`), as in `ProviderTokenRefreshState`.
///
/// A refresh is one round of actions:
///
///     read ─┬─ shared token fresh ─────────────────────────── adopt ── done
///           └─ missing or due (or ours is newer) ── acquireLock
///                 ├─ taken ── read again ─┬─ fresh now ──── adopt ── releaseLock ── done
///                 │                       └─ still due ─ publish ours or a new mint
///                 │                                          ── releaseLock ── done
///                 └─ held ── wait ── read again (at most `lockAttempts` times, then done)
///
/// and any store failure ends it in the fallback: the replica keeps its
/// token, and mints its own when that one is due.
///
/// Invariants:
/// - this replica mints only when it has minted nothing in the last
///   20 minutes (`lastMinted`), whatever the store says;
/// - with the store reachable, it mints in a refresh only under the mint
///   lock, after reading that the shared token is missing or has reached the
///   refresh age (≥ 20 minutes), and when it has no fresher token of its own
///   to publish instead: so the fleet mints at most once per refresh age;
/// - a token is handed out at most ``maximumAge`` (55 minutes) after it was
///   issued, and published to expire from the store at that age.
struct FleetTokenRefreshState: Sendable {
    typealias Mint = ProviderTokenRefreshState.Mint

    /// Apple: refresh no more than once per 20 minutes.
    static let minimumMintInterval: Int64 = ProviderTokenRefreshState.minimumMintInterval
    /// The oldest a token gets: 5 minutes' margin under APNs's 60-minute
    /// expiry, for clocks that disagree. A shared token expires from the store
    /// at this age, and the hot path mints its own rather than hand out one
    /// this old (the background refresh should have replaced it long before).
    static let maximumAge: Int64 = 55 * 60

    /// What the refresh does next with the store.
    enum Action: Equatable, Sendable {
        /// Read the shared token; answer with ``read(_:now:mint:)``.
        case read
        /// Try to take the mint lock; answer with ``lockAnswered(taken:now:mint:)``.
        case acquireLock
        /// Another replica holds the lock: wait briefly, then ``waited()``.
        case wait
        /// Publish this token to expire after the given seconds; answer with
        /// ``published(now:)``.
        case publish(SharedProviderToken, expiresAfterSeconds: Int64)
        /// Release the mint lock; answer with ``released()``.
        case releaseLock
        /// The round is over.
        case done
    }

    private enum Phase: Equatable, Sendable {
        case idle
        case reading(locked: Bool)
        case locking
        case waiting
        case publishing(SharedProviderToken)
        case releasing
    }

    /// A token this old (seconds) or older is replaced.
    let refreshAge: Int64
    /// How many times a refresh finds the lock held before it gives up
    /// until its next round.
    let lockAttempts: Int
    /// The token the hot path hands out.
    private(set) var current: SharedProviderToken?
    /// Whether ``current`` is the store's token (read from it or published
    /// to it), as opposed to one of this replica's own not (yet) shared.
    private(set) var currentIsShared = false
    /// This replica's latest mint: the 20-minute rule is kept against it.
    private(set) var lastMinted: SharedProviderToken?
    /// True from a failed store operation to the end of the next round
    /// without one.
    private(set) var storeUnreachable = false
    private(set) var mintCount = 0
    /// How many times the store became unreachable.
    private(set) var fallbackCount = 0
    private var phase = Phase.idle
    private var locksFoundHeld = 0

    init(refreshAge: Int64, lockAttempts: Int = 5) {
        precondition(refreshAge >= Self.minimumMintInterval && refreshAge < Self.maximumAge,
                     "refresh age outside 20 minutes to the maximum age")
        self.refreshAge = refreshAge
        self.lockAttempts = max(1, lockAttempts)
    }

    /// Whether the hot path hands out a token the fleet does not share.
    var isUsingLocalToken: Bool { current != nil && !currentIsShared }

    // MARK: The hot path

    /// The token to send at `now`. Mints only when there is none, when the
    /// store is unreachable and the token has reached the refresh age (the
    /// in-process rule), or when it is ``maximumAge`` old.
    mutating func token(now: Int64, mint: Mint) throws(ProviderTokenError) -> String {
        if let current {
            let age = Self.age(of: current, at: now)
            if age < refreshAge || (!storeUnreachable && age < Self.maximumAge) { return current.jwt }
        }
        if let replacement = try replacement(now: now, excluding: nil, mint: mint) { return replacement.jwt }
        if let current { return current.jwt }
        // Unreachable: without a current token there is no mint either, and
        // `replacement` mints. Kept total rather than trapping.
        return try mintNow(now: now, mint: mint).jwt
    }

    /// The in-process rules (`ProviderTokenRefreshState`), the age being the
    /// shared token's when the rejected token is the shared one.
    mutating func rejected(_ token: String, reason: APNsReason, now: Int64, mint: Mint) -> ProviderTokenRefreshDecision {
        switch reason {
        case .expiredProviderToken:
            guard let current, current.jwt == token else {
                return Self.attempt { () throws(ProviderTokenError) in .retryWithNewToken(try self.token(now: now, mint: mint)) }
            }
            let tokenAge = Self.age(of: current, at: now)
            guard tokenAge >= Self.minimumMintInterval else {
                return .doNotRetry(.clockSkew(tokenAgeSeconds: tokenAge))
            }
            return Self.attempt { () throws(ProviderTokenError) in
                guard let fresh = try self.replacement(now: now, excluding: token, mint: mint) else {
                    return .doNotRetry(.clockSkew(tokenAgeSeconds: tokenAge))
                }
                return .retryWithNewToken(fresh.jwt)
            }
        case .tooManyProviderTokenUpdates:
            if let current { return .retryWithCurrentToken(current.jwt) }
            return Self.attempt { () throws(ProviderTokenError) in .retryWithCurrentToken(try self.token(now: now, mint: mint)) }
        case .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken:
            return .doNotRetry(.credentialsRejected(reason))
        default:
            return .notATokenProblem
        }
    }

    // MARK: A refresh round

    /// Starts a round: `.read`, or `.done` while another round is running.
    mutating func beginRefresh() -> Action {
        guard phase == .idle else { return .done }
        locksFoundHeld = 0
        phase = .reading(locked: false)
        return .read
    }

    /// The store answered a read with `shared` (nil: none, or malformed).
    mutating func read(_ shared: SharedProviderToken?, now: Int64, mint: Mint) -> Action {
        guard case .reading(let locked) = phase else { return .done }
        if let shared, Self.age(of: shared, at: now) < refreshAge {
            if let current, ownTokenReplaces(shared, current: current, now: now) {
                return locked ? publish(current, now: now) : acquireLock()
            }
            adopt(shared)
            return locked ? releaseLock() : finish()
        }
        guard locked else { return acquireLock() }
        // Under the lock, and the shared token is still missing or due.
        let candidate: SharedProviderToken?
        if let current, Self.age(of: current, at: now) < refreshAge, current.issuedAt > (shared?.issuedAt ?? .min) {
            candidate = current
        } else {
            do throws(ProviderTokenError) {
                candidate = try replacement(now: now, excluding: nil, mint: mint)
            } catch {
                // The hot path will try again and report the failure.
                candidate = nil
            }
        }
        guard let candidate else { return releaseLock() }
        return publish(candidate, now: now)
    }

    /// The store answered the lock attempt.
    mutating func lockAnswered(taken: Bool, now: Int64, mint: Mint) -> Action {
        guard phase == .locking else { return .done }
        if taken {
            phase = .reading(locked: true)
            return .read
        }
        locksFoundHeld += 1
        guard locksFoundHeld < lockAttempts else { return finish() }
        phase = .waiting
        return .wait
    }

    /// The wait after a lock found held is over: read again.
    mutating func waited() -> Action {
        guard phase == .waiting else { return .done }
        phase = .reading(locked: false)
        return .read
    }

    /// The store took the published token.
    mutating func published(now: Int64) -> Action {
        guard case .publishing(let token) = phase else { return .done }
        if token.issuedAt >= (current?.issuedAt ?? .min) {
            current = token
            currentIsShared = true
        }
        return releaseLock()
    }

    /// The store released the lock.
    mutating func released() -> Action {
        guard phase == .releasing else { return .done }
        return finish()
    }

    /// A store operation failed: the round ends (a held lock lapses in the
    /// store by itself), and the replica goes on with a token of its own,
    /// minted now if its current one is missing or due.
    mutating func storeFailed(now: Int64, mint: Mint) -> Action {
        if !storeUnreachable {
            storeUnreachable = true
            fallbackCount += 1
        }
        phase = .idle
        if (current.map { Self.age(of: $0, at: now) } ?? .max) >= refreshAge {
            _ = try? replacement(now: now, excluding: nil, mint: mint)
        }
        return .done
    }

    /// Whether a round is running.
    var isRefreshing: Bool { phase != .idle }

    // MARK: Rules

    /// Seconds since `token` was issued, saturating instead of trapping on
    /// absurd values; negative when the issuer's clock is ahead of ours.
    static func age(of token: SharedProviderToken, at now: Int64) -> Int64 {
        let (age, overflow) = now.subtractingReportingOverflow(token.issuedAt)
        if overflow { return now < token.issuedAt ? .min : .max }
        return age
    }

    /// Whether this replica's `current` token should replace the fresh
    /// `shared` one rather than be replaced by it: it is newer and not due,
    /// and the shared one is at least 20 minutes old (replacing a younger one
    /// would update the other replicas' connections too soon). This is how a
    /// token minted for a rejection, or during a fallback, becomes the
    /// fleet's without another mint.
    private func ownTokenReplaces(_ shared: SharedProviderToken, current: SharedProviderToken, now: Int64) -> Bool {
        current != shared && current.issuedAt > shared.issuedAt
            && Self.age(of: current, at: now) < refreshAge
            && Self.age(of: shared, at: now) >= Self.minimumMintInterval
    }

    /// A token newer than the current one: this replica's last mint when it
    /// is newer, not `excluding` and not due, else a new mint, allowed only
    /// when the last mint is at least 20 minutes old. Nil when neither is.
    private mutating func replacement(now: Int64, excluding: String?, mint: Mint) throws(ProviderTokenError) -> SharedProviderToken? {
        if let last = lastMinted, last.jwt != excluding, last.issuedAt > (current?.issuedAt ?? .min),
           Self.age(of: last, at: now) < refreshAge {
            current = last
            currentIsShared = false
            return last
        }
        if let last = lastMinted, Self.age(of: last, at: now) < Self.minimumMintInterval { return nil }
        return try mintNow(now: now, mint: mint)
    }

    /// Signs a token issued `now` and makes it current.
    private mutating func mintNow(now: Int64, mint: Mint) throws(ProviderTokenError) -> SharedProviderToken {
        let token = SharedProviderToken(jwt: try mint(now), issuedAt: now)
        lastMinted = token
        mintCount += 1
        current = token
        currentIsShared = false
        return token
    }

    private mutating func adopt(_ shared: SharedProviderToken) {
        current = shared
        currentIsShared = true
    }

    private mutating func acquireLock() -> Action {
        phase = .locking
        return .acquireLock
    }

    private mutating func publish(_ token: SharedProviderToken, now: Int64) -> Action {
        phase = .publishing(token)
        let age = max(0, Self.age(of: token, at: now))
        return .publish(token, expiresAfterSeconds: Self.maximumAge - min(age, Self.maximumAge - 1))
    }

    private mutating func releaseLock() -> Action {
        phase = .releasing
        return .releaseLock
    }

    /// A round that ends without a store failure: the store is reachable
    /// again. Only a whole round counts, so a store that answers reads but
    /// fails writes (a read-only replica after a failover) stays unreachable
    /// instead of coming and going every round.
    private mutating func finish() -> Action {
        phase = .idle
        storeUnreachable = false
        return .done
    }

    private static func attempt(_ body: () throws(ProviderTokenError) -> ProviderTokenRefreshDecision) -> ProviderTokenRefreshDecision {
        do throws(ProviderTokenError) {
            return try body()
        } catch {
            return .doNotRetry(.signingFailed(String(describing: error)))
        }
    }
}
