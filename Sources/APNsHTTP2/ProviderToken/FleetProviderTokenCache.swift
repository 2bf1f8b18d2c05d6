public import OpenSSLCrypto
import PushGWSync

/// The ``ProviderTokenSource`` of a fleet: every replica presents the one
/// APNs provider token the fleet shares for its team and key through a
/// ``SharedProviderTokenStore``, and the fleet mints once per refresh age.
///
/// - The hot path (``token(now:)``) hands out this replica's copy of the
///   shared token under one short lock; it never waits for the store.
/// - ``refresh()`` keeps that copy fresh: it adopts the shared token when it
///   changed; when the shared token is missing or has reached ``refreshAge``,
///   one replica takes the mint lock, mints, publishes, and releases; the
///   others find the lock held, wait ``Settings/lockWait`` and read again
///   (up to ``Settings/lockAttempts`` times, then try in their next round).
///   ``start()`` runs it every ``Settings/refreshInterval``; ``prepare()``
///   runs it once before the first send.
/// - When the store cannot be reached, the replica keeps its token and mints
///   its own when that one is due, at most once per 20 minutes (the
///   in-process rules); ``report`` is told once when that starts and once
///   when the store answers again, and the next refresh goes back to the
///   shared token (or publishes this replica's, if it is the newer).
/// - Rejections follow ``ProviderTokenCache``'s rules, judged against the
///   shared token's issue time; a token minted for one is published by the
///   next refresh, so the fleet converges on it.
///
/// The rules live in `FleetTokenRefreshState`; this class adds the lock,
/// the store calls, the signing and the background task. Time comes only
/// from `now` arguments and the injected clock.
///
/// Thread-safety: `Sendable`; the state is behind one lock, the signing key
/// and the settings are immutable, and store calls are made outside the lock.
public final class FleetProviderTokenCache: ProviderTokenSource {
    /// How the refresh uses the store.
    public struct Settings: Sendable {
        /// How old the shared token gets before it is replaced: 20 to 50 minutes.
        public var refreshAge: Duration = ProviderTokenCache.defaultRefreshAge
        /// How often ``start()`` refreshes (reads the shared token).
        public var refreshInterval: Duration = .seconds(15)
        /// How long the mint lock lives when its holder does not release it.
        public var lockTimeToLive: Duration = .seconds(10)
        /// How long a replica that found the lock held waits before reading again.
        public var lockWait: Duration = .milliseconds(250)
        /// How many times a refresh finds the lock held before it leaves the
        /// mint to the next round.
        public var lockAttempts = 5

        public init() {}
    }

    /// What ``FleetProviderTokenCache/report`` is told: the store's reachability
    /// changed. Said once per change, never per request.
    public enum StoreReport: Sendable, Equatable {
        /// The store failed; this replica uses (and, when due, mints) a token of
        /// its own until the store answers again.
        case unreachable(SharedProviderTokenStoreError)
        /// The store answered again; the replica goes back to the shared token.
        case reachable
    }

    /// The Key ID (`kid`).
    public let keyID: String
    /// The Team ID (`iss`).
    public let teamID: String
    /// The store's identity of this token.
    public let storeKey: ProviderTokenStoreKey
    /// How old the shared token gets before it is replaced.
    public var refreshAge: Duration { settings.refreshAge }
    /// This replica's lock owner value, unique to this instance.
    public let owner: String
    private let settings: Settings
    private let signingKey: ES256SigningKey
    private let store: any SharedProviderTokenStore
    private let now: @Sendable () -> Int64
    private let wait: @Sendable (Duration) async -> Void
    private let report: @Sendable (StoreReport) -> Void
    private let state: Locked<FleetTokenRefreshState>
    private let background = Locked<Task<Void, Never>?>(nil)
    /// The round running now, which every concurrent ``refresh()`` joins.
    private let round = Locked<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - owner: the mint lock's owner value; by default the `replica` name
    ///     and random hex, unique to this instance.
    ///   - now: the clock, in epoch seconds, for refreshes.
    ///   - wait: sleeps (the wait after a lock found held, and between
    ///     background refreshes); tests pass their own.
    ///   - report: told when the store becomes unreachable or reachable again.
    /// - Throws: `invalidKeyID` / `invalidTeamID` for malformed IDs,
    ///   `refreshAgeOutOfRange` for a refresh age outside 20…50 minutes.
    public init(keyID: String, teamID: String, signingKey: ES256SigningKey, store: any SharedProviderTokenStore,
                settings: Settings = Settings(), replica: String = "pushgw", owner: String? = nil,
                now: @escaping @Sendable () -> Int64,
                wait: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
                report: @escaping @Sendable (StoreReport) -> Void = { _ in }) throws(ProviderTokenError) {
        try APNsProviderToken.validate(keyID: keyID, teamID: teamID)
        guard ProviderTokenCache.allowedRefreshAges.contains(settings.refreshAge) else {
            throw .refreshAgeOutOfRange(settings.refreshAge)
        }
        self.keyID = keyID
        self.teamID = teamID
        storeKey = ProviderTokenStoreKey(teamID: teamID, keyID: keyID)
        var random = SystemRandomNumberGenerator()
        self.owner = owner ?? replica + ":" + String(random.next() as UInt64, radix: 16)
        self.settings = settings
        self.signingKey = signingKey
        self.store = store
        self.now = now
        self.wait = wait
        self.report = report
        state = Locked(FleetTokenRefreshState(refreshAge: settings.refreshAge.components.seconds,
                                              lockAttempts: settings.lockAttempts))
    }

    deinit {
        background.withLock { $0?.cancel() }
    }

    // MARK: Counters

    /// Tokens this replica has minted (signed).
    public var mintCount: Int { state.withLock { $0.mintCount } }
    /// How many times the store became unreachable.
    public var fallbackCount: Int { state.withLock { $0.fallbackCount } }
    /// Whether the token handed out is this replica's own, not the fleet's.
    public var isUsingLocalToken: Bool { state.withLock { $0.isUsingLocalToken } }
    /// The issue time of the token handed out; nil before the first.
    public var currentIssuedAt: Int64? { state.withLock { $0.current?.issuedAt } }
    /// Whether the last store operation failed.
    public var isStoreUnreachable: Bool { state.withLock { $0.storeUnreachable } }

    // MARK: ProviderTokenSource

    /// This replica's copy of the shared token; a token of its own only when
    /// it has none, when the store is unreachable and the token is due, or
    /// when the token is 55 minutes old.
    public func token(now: Int64) throws(ProviderTokenError) -> String {
        try state.withLock { state throws(ProviderTokenError) in
            try state.token(now: now, mint: mint)
        }
    }

    /// ``ProviderTokenCache``'s rejection rules on the shared token; a
    /// replacement minted here is published by the next refresh, started at
    /// once when the background refresh runs.
    public func tokenWasRejected(_ token: String, reason: APNsReason, now: Int64) -> ProviderTokenRefreshDecision {
        let decision = state.withLock { state in
            state.rejected(token, reason: reason, now: now, mint: mint)
        }
        if case .retryWithNewToken = decision, isUsingLocalToken, isRefreshingInBackground {
            Task { await self.refresh() }
        }
        return decision
    }

    // MARK: Refresh

    /// One refresh round with the store (see the type's description). A
    /// call while a round is running (the background one, say) waits for
    /// that round instead of starting another.
    public func refresh() async {
        let task = round.withLock { running in
            if let running { return running }
            let task = Task {
                await self.runRound()
                self.round.withLock { $0 = nil }
            }
            running = task
            return task
        }
        await task.value
    }

    private func runRound() async {
        var action = step { $0.beginRefresh() }
        while true {
            switch action {
            case .done:
                return
            case .read:
                let shared: SharedProviderToken?
                do throws(SharedProviderTokenStoreError) {
                    shared = try await store.token(for: storeKey)
                } catch .malformedEntry {
                    shared = nil
                } catch {
                    action = failed(error)
                    continue
                }
                let now = self.now()
                action = step { $0.read(shared, now: now, mint: mint) }
            case .acquireLock:
                do throws(SharedProviderTokenStoreError) {
                    let taken = try await store.acquireMintLock(for: storeKey, owner: owner, expiresAfter: settings.lockTimeToLive)
                    let now = self.now()
                    action = step { $0.lockAnswered(taken: taken, now: now, mint: mint) }
                } catch {
                    action = failed(error)
                }
            case .wait:
                await wait(settings.lockWait)
                action = step { $0.waited() }
            case let .publish(token, seconds):
                do throws(SharedProviderTokenStoreError) {
                    try await store.publish(token, for: storeKey, expiresAfter: .seconds(seconds))
                    let now = self.now()
                    action = step { $0.published(now: now) }
                } catch {
                    action = failed(error)
                }
            case .releaseLock:
                do throws(SharedProviderTokenStoreError) {
                    try await store.releaseMintLock(for: storeKey, owner: owner)
                    action = step { $0.released() }
                } catch {
                    action = failed(error)
                }
            }
        }
    }

    /// One refresh, then a token of this replica's own if there is still
    /// none: run before the first send, so that it presents the fleet's token.
    public func prepare() async {
        await refresh()
        let now = self.now()
        _ = try? token(now: now)
    }

    /// Starts refreshing every ``Settings/refreshInterval`` in a background
    /// task, until ``stop()``. Starting twice is harmless.
    public func start() {
        background.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self, interval = settings.refreshInterval, wait] in
                while !Task.isCancelled {
                    // No strong reference across the wait: a cache nobody
                    // holds ends its task.
                    do {
                        guard let self else { return }
                        await self.refresh()
                    }
                    await wait(interval)
                }
            }
        }
    }

    /// Whether the background refresh runs (between ``start()`` and ``stop()``).
    public var isRefreshingInBackground: Bool { background.withLock { $0 != nil } }

    /// Stops the background refresh.
    public func stop() {
        background.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Applies a transition and reports a change of the store's reachability.
    private func step(_ transition: (inout FleetTokenRefreshState) -> FleetTokenRefreshState.Action,
                      failure: SharedProviderTokenStoreError? = nil) -> FleetTokenRefreshState.Action {
        let (action, before, after) = state.withLock { state in
            let before = state.storeUnreachable
            let action = transition(&state)
            return (action, before, state.storeUnreachable)
        }
        if before != after {
            report(after ? .unreachable(failure ?? .unavailable("unknown")) : .reachable)
        }
        return action
    }

    private func failed(_ error: SharedProviderTokenStoreError) -> FleetTokenRefreshState.Action {
        let now = self.now()
        return step({ $0.storeFailed(now: now, mint: mint) }, failure: error)
    }

    /// Signs one token. Called only under the lock, by the state machine.
    private func mint(issuedAt: Int64) throws(ProviderTokenError) -> String {
        try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: signingKey).jwt
    }
}
