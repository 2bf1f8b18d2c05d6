import XCTest

extension XCTestCase {
    /// Polls `condition` every 20 ms; fails the test, naming `what`, when it
    /// is still false after `limit`.
    func waitUntil(_ what: String, within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("not within \(limit): \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
