import Foundation
import XCTest

/// Every query the shipped dashboard (`deploy/grafana/pushgw.json`) and
/// alerts (`deploy/prometheus/alerts.yml`) send to Prometheus parses, and
/// names only metrics a running gateway exports: a renamed metric breaks
/// this test, not an operator's dashboard.
final class MonitoringQueriesTests: XCTestCase {
    private func allQueries() throws -> [MonitoringFiles.Query] {
        try MonitoringFiles.dashboardQueries() + MonitoringFiles.alerts()
    }

    /// The series names a real scrape of the demo-mode gateway, on a real
    /// `redis-server` so that the async queue and feedback families are
    /// there too, offers to queries: each family's name, or for a histogram
    /// its `_bucket`, `_sum` and `_count` series; with the families, by name.
    private func exported() async throws -> (series: Set<String>, families: [String: Set<String>]) {
        let demo = try DemoModeGateway.withQueue(self)
        let answer = try await ServiceTestbed.call(demo.baseURL, "POST", "/v1/notify", body: try ServiceTestbed.seedEvent())
        XCTAssertEqual(answer.status, 200)
        try await demo.notifyAsyncWithFeedback(id: "queued-1", token: ServiceTestbed.token(0x70000))
        try await demo.waitForSeries(DemoModeGateway.asyncSeries)
        let scrape = try await demo.scrape()
        await demo.stop()
        var families: [String: Set<String>] = [:]
        for line in String(decoding: scrape, as: UTF8.self).split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let words = line.split(separator: " ")
            guard words.count == 4 else { XCTFail("unexpected TYPE line: \(line)"); continue }
            let name = String(words[2])
            families[name] = words[3] == "histogram" ? [name + "_bucket", name + "_sum", name + "_count"] : [name]
        }
        XCTAssertGreaterThanOrEqual(families.count, 19, String(decoding: scrape, as: UTF8.self))
        return (families.values.reduce(into: Set()) { $0.formUnion($1) }, families)
    }

    func testEveryDashboardQueryAndAlertExpressionParses() throws {
        let promtool = try Promtool()
        let queries = try allQueries()
        XCTAssertGreaterThan(try MonitoringFiles.dashboardQueries().count, 10)
        // Each query as a recording rule of a rules file, so that promtool
        // parses it as Prometheus would. Written as JSON, which is YAML, with
        // slashes left as they are (promtool's YAML reader refuses `\/`).
        let rules = queries.enumerated().map { index, query in
            ["record": "pushgw_monitoring_query_\(index)", "expr": MonitoringFiles.substitutingVariables(query.expr)]
        }
        let file = NSTemporaryDirectory() + "pushgw-monitoring-queries-\(UUID().uuidString).yml"
        let body = try JSONSerialization.data(withJSONObject: ["groups": [["name": "pushgw-monitoring-queries", "rules": rules]]],
                                              options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        try body.write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try promtool.run(["check", "rules", file])
        XCTAssertEqual(run.status, 0, "\(run.output)\n\(queries.enumerated().map { "\($0): \($1.origin)" }.joined(separator: "\n"))")
        XCTAssertTrue(run.output.contains("SUCCESS: \(queries.count) rules found"), run.output)
    }

    func testEveryQueryNamesOnlyMetricsTheGatewayExports() async throws {
        let exported = try await exported().series
        for query in try allQueries() {
            let names = PromQLNames.names(in: MonitoringFiles.substitutingVariables(query.expr))
            XCTAssertFalse(names.isEmpty, "\(query.origin): no metric found in \(query.expr)")
            XCTAssertEqual(names.subtracting(exported), [], "\(query.origin) names metrics the gateway does not export: \(query.expr)")
        }
    }

    func testTheDashboardShowsEveryExportedFamily() async throws {
        let families = try await exported().families
        let shown = try MonitoringFiles.dashboardQueries().reduce(into: Set<String>()) {
            $0.formUnion(PromQLNames.names(in: MonitoringFiles.substitutingVariables($1.expr)))
        }
        for (family, series) in families.sorted(by: { $0.key < $1.key }) {
            XCTAssertFalse(series.isDisjoint(with: shown), "no dashboard panel shows \(family)")
        }
    }

    func testTheNameReaderSkipsFunctionsLabelsRangesAndKeywords() {
        let expr = #"""
            histogram_quantile(0.9, sum by (le, provider) (rate(a_bucket{x="y{z}]", le!~'1'}[5m] offset 1h)))
              / on (job) group_left (provider) b:recorded and sum(c) without (d) > bool 1e3 # e
            """#
        XCTAssertEqual(PromQLNames.names(in: expr), ["a_bucket", "b:recorded", "c"])
        XCTAssertEqual(PromQLNames.names(in: MonitoringFiles.substitutingVariables(#"rate(f{instance=~"$instance"}[$__rate_interval])"#)), ["f"])
        XCTAssertEqual(MonitoringFiles.substitutingVariables(#"rate(f{instance=~"${instance}"}[$__rate_interval])"#),
                       #"rate(f{instance=~".*"}[5m])"#)
    }

    /// Grafana imports the file: an object with a null `id` (a new
    /// dashboard), a fixed `uid`, its data source chosen by a variable, and
    /// panels that do not overlap.
    func testTheDashboardIsAnImportableGrafanaDashboard() throws {
        let dashboard = try MonitoringFiles.dashboardJSON()
        XCTAssertTrue(dashboard["id"] is NSNull, "a dashboard to import has a null id")
        XCTAssertEqual(dashboard["uid"] as? String, "pushgw")
        let variables = (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        XCTAssertEqual(variables.first?["type"] as? String, "datasource")
        XCTAssertEqual(variables.first?["query"] as? String, "prometheus")
        var ids: Set<Int> = []
        var cells: Set<[Int]> = []
        for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
            let title = panel["title"] as? String ?? "untitled"
            guard let id = panel["id"] as? Int, ids.insert(id).inserted else { XCTFail("\(title): missing or repeated id"); continue }
            guard let grid = panel["gridPos"] as? [String: Int], let x = grid["x"], let y = grid["y"], let w = grid["w"], let h = grid["h"],
                  x >= 0, w > 0, x + w <= 24, h > 0 else { XCTFail("\(title): bad gridPos"); continue }
            let covered = (y..<(y + h)).flatMap { row in (x..<(x + w)).map { [row, $0] } }
            XCTAssertTrue(covered.allSatisfy { !cells.contains($0) }, "\(title) overlaps another panel")
            cells.formUnion(covered)
            guard panel["type"] as? String != "row" else { continue }
            let source = panel["datasource"] as? [String: String]
            XCTAssertEqual(source?["uid"], "${datasource}", title)
            XCTAssertFalse((panel["targets"] as? [Any] ?? []).isEmpty, "\(title): no query")
        }
    }
}
