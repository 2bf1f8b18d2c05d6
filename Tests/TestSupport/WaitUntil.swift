import Foundation
import XCTest

/// Waits until `condition` holds, looking at it again every `interval`, for
/// what another thread or task does (a server answering, a cache refreshing
/// in the background, a connection closing). Returns true as soon as it
/// holds; fails the test, naming `what`, and returns false when it still
/// does not after `limit`.
///
/// The condition may itself wait (ask a server over HTTP, for instance).
@discardableResult
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(5),
    file: StaticString = #filePath, line: UInt = #line, _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            XCTFail("not within \(limit): \(what)", file: file, line: line)
            return false
        }
        try await Task.sleep(for: interval)
    }
    return true
}

/// `waitUntil` for synchronous code (a test that drives a blocking client,
/// a helper on a thread of its own): the same contract, blocking the calling
/// thread between looks. A name of its own, so that async code never picks
/// it and blocks a thread of the cooperative pool.
@discardableResult
public func blockUntil(
    _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(5),
    file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            XCTFail("not within \(limit): \(what)", file: file, line: line)
            return false
        }
        Thread.sleep(forTimeInterval: interval.inSeconds)
    }
    return true
}

extension Duration {
    /// The duration in seconds, as `Thread.sleep` takes it.
    fileprivate var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
