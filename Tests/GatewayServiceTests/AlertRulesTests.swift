import XCTest

/// `deploy/prometheus/alerts.yml` as Prometheus reads it: `promtool check
/// rules` finds it clean, its unit tests (`alerts.test.yml`) pass under
/// `promtool test rules`, and they show every alert both firing and not.
final class AlertRulesTests: XCTestCase {
    func testTheAlertingRulesPassPromtoolCheckRules() throws {
        let run = try Promtool().run(["check", "rules", MonitoringFiles.alertsPath])
        XCTAssertEqual(run.status, 0, run.output)
        let alerts = try MonitoringFiles.alerts()
        XCTAssertTrue(run.output.contains("SUCCESS: \(alerts.count) rules found"),
                      "promtool and this test's reading of the file disagree on the rules: \(alerts.map(\.origin)) against\n\(run.output)")
    }

    func testTheAlertUnitTestsPassUnderPromtoolTestRules() throws {
        let run = try Promtool().run(["test", "rules", MonitoringFiles.alertTestsPath])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("SUCCESS"), run.output)
    }

    func testEveryAlertIsShownFiringAndNotFiring() throws {
        let alerts = try MonitoringFiles.alerts().map { String($0.origin.dropFirst("alert ".count)) }
        let cases = try MonitoringFiles.alertTestCases()
        XCTAssertGreaterThanOrEqual(alerts.count, 6)
        for alert in alerts {
            XCTAssertTrue(cases[alert]?.contains(true) == true, "\(alert): no unit test where it fires")
            XCTAssertTrue(cases[alert]?.contains(false) == true, "\(alert): no unit test where it stays silent")
        }
        XCTAssertEqual(Set(cases.keys).subtracting(alerts), [], "unit tests of alerts the file does not have")
    }
}
