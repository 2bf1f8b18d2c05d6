public import PayloadBuilder
import Synchronization
import PushGWSync

/// Decides whether the sender's avatar URL may be forwarded to the device,
/// by downloading it first: the Linux side of an iOS Communication
/// Notification, so that a dead or hostile URL never reaches the phone
/// (where it would stall the Notification Service Extension).
///
/// `resolve(_:)` answers `.ok` with the image's type, size and SHA-256 when
/// the URL passes the `AvatarPolicy`, else `.dropped` with a short reason.
/// Results are cached (LRU with TTL, refusals included for a shorter TTL),
/// and concurrent resolves of one URL share one download. Downloads use
/// libcurl, which blocks, on a few dedicated threads
/// (`policy.maxConcurrentFetches`), never on Swift's cooperative pool.
///
/// Thread-safe: all shared state is behind one `Mutex`. Cancelling a
/// resolving task does not cut its wait short; `totalTimeout` bounds it.
public final class AvatarResolver: Sendable {
    /// The policy every download is checked against.
    public let policy: AvatarPolicy

    private let now: @Sendable () -> ContinuousClock.Instant
    /// `pushgw_avatar_fetch_total{result}`, counted here.
    private let results: SeriesByLabel
    private let fetcher: AvatarFetcher
    private let pool: AvatarFetchPool
    private let state: Locked<AvatarResolverState<Waiter>>
    private let nextWaiterID = Atomic<UInt64>(0)

    /// A resolve waiting for a download, known by its id so that it can
    /// stop waiting on its own.
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<AvatarState, Never>
    }

    /// A resolver for `policy`.
    ///
    /// - Parameters:
    ///   - now: the clock for cache expiry (tests pass one they can move).
    ///     Network timeouts always run on real time.
    ///   - metrics: where `pushgw_avatar_fetch_total{result}` is counted:
    ///     once per download with its result (`ok` or the drop reason, an
    ///     `AvatarDropReason` raw value), and per resolve answered without
    ///     one: `cached` (a cache hit), `coalesced` (joined a download
    ///     already running), a refusal by the policy, or `timeout` for a call
    ///     that stopped waiting. Never the URL.
    public init(
        policy: AvatarPolicy = AvatarPolicy(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        metrics: MetricsRegistry = MetricsRegistry()
    ) {
        self.policy = policy
        self.now = now
        results = SeriesByLabel(metrics, GatewayMetrics.avatarFetch)
        self.fetcher = AvatarFetcher(policy: policy)
        self.pool = AvatarFetchPool(limit: policy.maxConcurrentFetches, staleAfter: policy.totalTimeout)
        self.state = Locked(AvatarResolverState(
            capacity: policy.cacheCapacity,
            positiveTTL: policy.cacheTTL,
            negativeTTL: policy.negativeCacheTTL
        ))
    }

    /// What to forward for the avatar at `url`: `.none` for `nil`, `.ok` when
    /// it downloaded within the policy as a known image, else `.dropped`.
    ///
    /// What can be refused without the network (scheme, credentials,
    /// allow-list, a literal private address) is refused at once, every time
    /// (only the decision is remembered); everything else is downloaded once
    /// and cached.
    ///
    /// No call waits longer than `policy.totalTimeout`, or `limit` when
    /// shorter (the time a caller's deadline can spare), however many
    /// downloads are queued before its own (a dead avatar host with many
    /// senders): past it the answer is `.dropped` with `timeout`, counted as
    /// such, and the download goes on to fill the cache for later events.
    public func resolve(_ url: String?, waitingAtMost limit: Duration? = nil) async -> AvatarState {
        guard let url else { return .none }
        let host: String
        switch decision(url, now: now()) {
        case let .refused(reason):
            count(reason.rawValue)
            return .dropped(url: url, reason: reason.rawValue)
        case let .passed(passedHost):
            host = passedHost
        }
        return await withCheckedContinuation { continuation in
            let instant = now()
            let waiter = Waiter(id: nextWaiterID.add(1, ordering: .relaxed).newValue, continuation: continuation)
            let admission = state.withLock { $0.admit(url, waiter: waiter, now: instant) }
            switch admission {
            case let .cached(result):
                count("cached")
                continuation.resume(returning: result)
                return
            case .joined:
                count("coalesced")
            case .fetch:
                pool.submit(AvatarFetchPool.Job(
                    host: host,
                    run: { self.finish(url, with: self.fetcher.fetch(url)) },
                    // Not tried: nothing is learnt about the URL, so nothing is cached.
                    abandon: { self.finish(url, with: .dropped(url: url, reason: $0.rawValue), remember: false) }
                ))
            }
            stopWaiting(for: url, waiter: waiter.id, after: min(policy.totalTimeout, max(limit ?? policy.totalTimeout, .zero)))
        }
    }

    /// Answers `timeout` to the waiter `id` if it is still waiting for `url` after `delay`.
    private func stopWaiting(for url: String, waiter id: UInt64, after delay: Duration) {
        Task {
            try? await Task.sleep(for: delay)
            guard let waiter = state.withLock({ $0.withdraw(url, where: { $0.id == id }) }) else { return }
            count(AvatarDropReason.timeout.rawValue)
            waiter.continuation.resume(returning: .dropped(url: url, reason: AvatarDropReason.timeout.rawValue))
        }
    }

    /// The answer when it needs no network: `.none` for nil, a refusal by
    /// the policy, or a live cache entry; nil when a download would be needed.
    public func resolveWithoutWaiting(_ url: String?) -> AvatarState? {
        guard let url else { return AvatarState.none }
        let instant = now()
        switch state.withLock({ $0.lookup(url, now: instant) }) {
        case let .refused(reason):
            count(reason.rawValue)
            return .dropped(url: url, reason: reason.rawValue)
        case let .cached(result):
            count("cached")
            return result
        case .uncached:
            return nil
        case .undecided:
            // Not judged yet (or the judgement expired or was evicted): judged
            // now. An allowed URL then waits for `resolve`, which serves it
            // from the cache if a download is still there.
            guard case let .refused(reason) = decision(url, now: instant) else { return nil }
            count(reason.rawValue)
            return .dropped(url: url, reason: reason.rawValue)
        }
    }

    /// Whether the policy refuses `url` without the network, and why, or
    /// lets it be fetched from its host. The decision is remembered per URL
    /// (the policy never changes), so libcurl parses a repeated URL once,
    /// not on every event.
    private func decision(_ url: String, now instant: ContinuousClock.Instant) -> AvatarPolicyDecision {
        state.withLock { $0.decision(for: url, now: instant) } ?? {
            let decision = AvatarPolicyDecision(policy.check(url))
            state.withLock { $0.remember(decision, for: url, now: instant) }
            return decision
        }()
    }

    /// Caches the result (unless `remember` is false: the URL was not
    /// tried), reports it, and wakes everyone waiting for `url`.
    private func finish(_ url: String, with result: AvatarState, remember: Bool = true) {
        let instant = now()
        let waiters = state.withLock { $0.finish(url, result: result, now: instant, remember: remember) }
        count(Self.label(result))
        for waiter in waiters {
            waiter.continuation.resume(returning: result)
        }
    }

    private func count(_ label: String) {
        results.series(label).add(1)
    }

    private static func label(_ result: AvatarState) -> String {
        switch result {
        case .ok: return "ok"
        case let .dropped(_, reason): return reason
        case .none, .unchecked: return AvatarDropReason.fetchFailed.rawValue
        }
    }
}
