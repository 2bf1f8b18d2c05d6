import Foundation
import XCTest

/// How often `waitUntil` looks at its condition again.
private let pollInterval = Duration.milliseconds(5)

/// Waits until `condition` holds, looking at it every few milliseconds, for
/// what another thread or task does (a server answering, a cache refreshing
/// in the background, a connection closing). Returns true as soon as it
/// holds; fails the test, naming `what`, and returns false when it still
/// does not after `limit`.
@discardableResult
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line,
    _ condition: () -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            XCTFail("not within \(limit): \(what)", file: file, line: line)
            return false
        }
        try await Task.sleep(for: pollInterval)
    }
    return true
}

/// `waitUntil` for synchronous code (a test server's thread, a test that
/// drives a blocking client): the same contract, blocking the calling thread
/// between looks.
@discardableResult
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line,
    _ condition: () -> Bool
) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            XCTFail("not within \(limit): \(what)", file: file, line: line)
            return false
        }
        Thread.sleep(forTimeInterval: Double(pollInterval.components.attoseconds) / 1e18)
    }
    return true
}
