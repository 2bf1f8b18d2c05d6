import PushGWSync

/// What the dedup store could not do, by operation: counted in
/// `pushgw_dedup_store_errors_total{operation}` and logged as a warning at
/// most once per operation every `interval`, with the number since its last
/// line (a store that is down fails every event; the log says so a few
/// times, not once per event). Events sent without dedup are counted in
/// `pushgw_dedup_bypassed_total`.
final class DedupStoreFailureLog: Sendable {
    enum Operation: String, CaseIterable {
        case claim, record, release
    }

    private let logger: Logger
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    /// By `Operation.allCases` position.
    private let errors: [MetricSeries]
    let bypassed: MetricSeries
    /// Per operation: when its last line was written, and how many failed since.
    private let state = Locked<[Operation: (last: ContinuousClock.Instant, unlogged: Int)]>([:])

    init(_ registry: MetricsRegistry, logger: Logger, interval: Duration = .seconds(10),
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.logger = logger
        self.interval = interval
        self.now = now
        errors = Operation.allCases.map { registry.series(GatewayMetrics.dedupStoreErrors, [$0.rawValue]) }
        bypassed = registry.series(GatewayMetrics.dedupBypassed)
    }

    /// Counts a failed call; writes a line when its operation's interval is up.
    func failed(_ operation: Operation, _ failure: DedupStoreFailure, consequence: String) {
        errors[Operation.allCases.firstIndex(of: operation)!].add(1)
        let instant = now()
        let count: Int? = state.withLock { pairs in
            if let entry = pairs[operation], instant - entry.last < interval {
                pairs[operation] = (entry.last, entry.unlogged + 1)
                return nil
            }
            let count = (pairs[operation]?.unlogged ?? 0) + 1
            pairs[operation] = (instant, 0)
            return count
        }
        guard let count else { return }
        logger.warning("dedup store unavailable", [
            ("operation", operation.rawValue), ("reason", failure.kind.rawValue), ("detail", failure.detail),
            ("count", String(count)), ("consequence", consequence),
        ])
    }
}
