import DurableQueue

/// The async queue's metrics: depth, pending and age per app (refreshed by
/// each consumer loop every reclaim interval), and the queued events'
/// outcomes.
extension QueueWorker {
    /// `pushgw_queue_events_total{outcome}`: what the consumer did with each event it took.
    public static let eventsFamily = MetricsRegistry.Family(
        "pushgw_queue_events_total",
        "Queued events by what the consumer did: done, failed, left_pending (not sent; taken over later), ack_failed.",
        type: "counter")

    /// `pushgw_queue_given_up_total{app}`: events given up after too many deliveries.
    public static let givenUpFamily = MetricsRegistry.Family(
        "pushgw_queue_given_up_total",
        "Queued events given up after the most deliveries (PUSHGW_REDIS_QUEUE_MAX_DELIVERIES) without an outcome: "
            + "acknowledged as failed and reported to the feedback webhook.",
        type: "counter")

    /// `pushgw_queue_reclaimed_total`: events taken over from a consumer silent past the visibility timeout.
    public static let reclaimedFamily = MetricsRegistry.Family(
        "pushgw_queue_reclaimed_total", "Queued events taken over from a consumer silent past the visibility timeout.",
        type: "counter")
}

struct QueueSeries: Sendable {
    static let length = MetricsRegistry.Family(
        "pushgw_queue_length", "Events in an app's async queue not yet acknowledged (waiting or being sent).", type: "gauge")
    static let pending = MetricsRegistry.Family(
        "pushgw_queue_pending", "Events of an app's async queue taken by a consumer and not yet acknowledged.", type: "gauge")
    static let oldestAge = MetricsRegistry.Family(
        "pushgw_queue_oldest_age_seconds", "Age of the oldest event in an app's async queue not yet acknowledged.", type: "gauge")
    static let outcomes = QueueWorker.eventsFamily
    static let reclaims = QueueWorker.reclaimedFamily
    static let givenUps = QueueWorker.givenUpFamily

    let registry: MetricsRegistry
    let reclaimed: MetricSeries

    init(_ registry: MetricsRegistry) {
        self.registry = registry
        registry.declare(Self.length, labels: ["app"])
        registry.declare(Self.pending, labels: ["app"])
        registry.declare(Self.oldestAge, labels: ["app"])
        registry.declare(Self.outcomes, labels: ["outcome"])
        registry.declare(Self.givenUps, labels: ["app"])
        reclaimed = registry.series(Self.reclaims)
    }

    func outcome(_ name: String) -> MetricSeries { registry.series(Self.outcomes, [name]) }

    func givenUp(_ app: String) -> MetricSeries { registry.series(Self.givenUps, [app]) }

    func depth(_ app: String, _ depth: QueueDepth) {
        registry.set(Self.length, [app], to: Double(depth.length))
        registry.set(Self.pending, [app], to: Double(depth.pending))
        let age = depth.oldestAge.components
        registry.set(Self.oldestAge, [app], to: Double(age.seconds) + Double(age.attoseconds) / 1e18)
    }
}
