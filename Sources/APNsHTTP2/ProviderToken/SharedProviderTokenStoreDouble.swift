import PushGWSync

/// A test double of ``SharedProviderTokenStore``: the store's semantics
/// (entries and locks that lapse, set-if-absent, compare-and-delete) in
/// one process, on an injected clock, with the store's failure switchable
/// on and off. Several ``FleetProviderTokenCache`` instances sharing one
/// double behave as replicas sharing one Redis. Not for production: a
/// fleet shares nothing through it.
///
/// Every operation yields once before it acts, so replicas refreshing
/// concurrently interleave as they would over a network.
///
/// Thread-safety: `Sendable`; all state is behind one lock.
public final class SharedProviderTokenStoreDouble: SharedProviderTokenStore {
    /// What the double has been asked, for tests.
    public struct Counts: Sendable, Equatable {
        public var reads = 0
        public var lockAttempts = 0
        public var locksTaken = 0
        public var releases = 0
        public var publishes = 0
        public var failures = 0
    }

    private struct State {
        var tokens: [ProviderTokenStoreKey: (token: SharedProviderToken, expires: ContinuousClock.Instant)] = [:]
        var locks: [ProviderTokenStoreKey: (owner: String, expires: ContinuousClock.Instant)] = [:]
        var reachable = true
        var malformed: Set<ProviderTokenStoreKey> = []
        var counts = Counts()
        var published: [SharedProviderToken] = []
    }

    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Locked(State())

    /// - Parameter now: the clock entries and locks lapse by (a test
    ///   clock's `instant`).
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Whether operations succeed; when false each throws `unavailable`.
    public var isReachable: Bool {
        get { state.withLock { $0.reachable } }
        set { state.withLock { $0.reachable = newValue } }
    }

    /// What has been asked so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Every token published, in order.
    public var published: [SharedProviderToken] { state.withLock { $0.published } }

    /// The live entry of `key`, without counting a read.
    public func entry(for key: ProviderTokenStoreKey) -> SharedProviderToken? {
        let now = self.now()
        return state.withLock { state in state.tokens[key].flatMap { $0.expires > now ? $0.token : nil } }
    }

    /// The live lock holder of `key`.
    public func lockOwner(for key: ProviderTokenStoreKey) -> String? {
        let now = self.now()
        return state.withLock { state in state.locks[key].flatMap { $0.expires > now ? $0.owner : nil } }
    }

    /// Makes the entry of `key` unreadable (reads throw `malformedEntry`)
    /// until the next publish replaces it.
    public func corruptEntry(for key: ProviderTokenStoreKey) {
        state.withLock { _ = $0.malformed.insert(key) }
    }

    /// Forgets every entry and lock, as a store restarted without
    /// persistence (or failed over to a replica that lagged) would.
    public func forgetEverything() {
        state.withLock { state in
            state.tokens = [:]
            state.locks = [:]
        }
    }

    public func token(for key: ProviderTokenStoreKey) async throws(SharedProviderTokenStoreError) -> SharedProviderToken? {
        await Task.yield()
        let now = self.now()
        let entry = try operate { state -> SharedProviderToken?? in
            state.counts.reads += 1
            if state.malformed.contains(key) { return .some(nil) }
            guard let entry = state.tokens[key], entry.expires > now else { return nil }
            return entry.token
        }
        guard let entry else { return nil }
        guard let entry else { throw .malformedEntry }
        return entry
    }

    public func acquireMintLock(for key: ProviderTokenStoreKey, owner: String,
                                expiresAfter: Duration) async throws(SharedProviderTokenStoreError) -> Bool {
        await Task.yield()
        let now = self.now()
        return try operate { state in
            state.counts.lockAttempts += 1
            if let lock = state.locks[key], lock.expires > now { return false }
            state.locks[key] = (owner, now + expiresAfter)
            state.counts.locksTaken += 1
            return true
        }
    }

    public func releaseMintLock(for key: ProviderTokenStoreKey, owner: String) async throws(SharedProviderTokenStoreError) {
        await Task.yield()
        let now = self.now()
        try operate { state in
            state.counts.releases += 1
            if let lock = state.locks[key], lock.owner == owner, lock.expires > now { state.locks[key] = nil }
        }
    }

    public func publish(_ token: SharedProviderToken, for key: ProviderTokenStoreKey,
                        expiresAfter: Duration) async throws(SharedProviderTokenStoreError) {
        await Task.yield()
        let now = self.now()
        try operate { state in
            state.counts.publishes += 1
            state.tokens[key] = (token, now + expiresAfter)
            state.malformed.remove(key)
            state.published.append(token)
        }
    }

    private func operate<T>(_ body: (inout State) -> T) throws(SharedProviderTokenStoreError) -> T {
        let result: T? = state.withLock { state in
            guard state.reachable else {
                state.counts.failures += 1
                return nil
            }
            return body(&state)
        }
        guard let result else { throw .unavailable("the test double is switched off") }
        return result
    }
}
