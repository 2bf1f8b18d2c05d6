import GatewayService
import XCTest

/// The registry's series: exact under concurrent updates, histograms
/// cumulative, exposition in Prometheus text format.
final class MetricsRegistryTests: XCTestCase {
    private let counter = MetricsRegistry.Family("t_total", "A test counter.", type: "counter")
    private let gauge = MetricsRegistry.Family("t_in_flight", "A test gauge.", type: "gauge")
    private let latency = MetricsRegistry.Family("t_seconds", "A test histogram.", type: "histogram")

    func testConcurrentUpdatesFromManyThreadsAreAllCounted() async {
        let registry = MetricsRegistry()
        registry.declare(counter, labels: ["kind"])
        let cached = registry.series(counter, ["cached"])
        let family = counter
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 {
                        cached.add(1)
                        registry.increment(family, ["looked_up"])
                    }
                }
            }
        }
        XCTAssertEqual(registry.value(counter, ["cached"]), 80_000)
        XCTAssertEqual(registry.value(counter, ["looked_up"]), 80_000)
    }

    func testAGaugeGoesUpAndDownAndCanBeSet() {
        let registry = MetricsRegistry()
        registry.increment(gauge, by: 5)
        registry.increment(gauge, by: -2)
        XCTAssertEqual(registry.value(gauge), 3)
        registry.set(gauge, to: 0.25)
        XCTAssertEqual(registry.value(gauge), 0.25)
    }

    func testTheExpositionListsDeclaredFamiliesSeriesAndCumulativeBuckets() {
        let registry = MetricsRegistry()
        registry.declare(counter, labels: ["kind"])
        registry.declare(latency, labels: ["provider"])
        registry.declare(gauge, labels: [])
        registry.increment(counter, ["a\"b"], by: 2)
        registry.observe(latency, ["apns"], seconds: 0.003)
        registry.observe(latency, ["apns"], seconds: 0.2)
        let text = registry.exposition()
        XCTAssertTrue(text.contains("# TYPE t_total counter\nt_total{kind=\"a\\\"b\"} 2\n"), text)
        XCTAssertTrue(text.contains("# HELP t_in_flight A test gauge.\n# TYPE t_in_flight gauge\n"), "declared, no sample yet")
        XCTAssertTrue(text.contains("t_seconds_bucket{provider=\"apns\",le=\"0.0025\"} 0\n"), text)
        XCTAssertTrue(text.contains("t_seconds_bucket{provider=\"apns\",le=\"0.005\"} 1\n"), text)
        XCTAssertTrue(text.contains("t_seconds_bucket{provider=\"apns\",le=\"0.25\"} 2\n"), text)
        XCTAssertTrue(text.contains("t_seconds_bucket{provider=\"apns\",le=\"+Inf\"} 2\n"), text)
        XCTAssertTrue(text.contains("t_seconds_sum{provider=\"apns\"} 0.203\n"), text)
        XCTAssertTrue(text.contains("t_seconds_count{provider=\"apns\"} 2\n"), text)
    }

    func testSeriesByLabelUpdatesTheRegistrysSeriesOfThatLabel() async {
        let registry = MetricsRegistry()
        registry.declare(counter, labels: ["result"])
        let byLabel = SeriesByLabel(registry, counter)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for _ in 0..<1_000 { byLabel.series(worker % 2 == 0 ? "ok" : "cached").add(1) }
                }
            }
        }
        XCTAssertTrue(byLabel.series("ok") === registry.series(counter, ["ok"]))
        XCTAssertEqual(registry.value(counter, ["ok"]), 2_000)
        XCTAssertEqual(registry.value(counter, ["cached"]), 2_000)
        XCTAssertEqual(registry.value(counter, ["timeout"]), 0, "no series before its first use")
        XCTAssertFalse(registry.exposition().contains("timeout"))
    }
}
