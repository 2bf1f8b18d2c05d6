import Foundation

/// Waits until `condition` holds, looking at it again every `interval`, for
/// what another thread or task does (a server answering, a cache refreshing
/// in the background, a connection closing). Returns as soon as it holds;
/// throws `WaitTimedOut`, naming `what`, when it still does not after
/// `limit` (a test that lets it throw fails with that message). No XCTest
/// here: this target is built with the package's products too.
///
/// The condition may itself wait (ask a server over HTTP, for instance).
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(5),
    file: StaticString = #filePath, line: UInt = #line, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimedOut(description: "not within \(limit): \(what) (\(file):\(line))")
        }
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil` for synchronous code (a test that drives a blocking client,
/// a helper on a thread of its own): the same contract, blocking the calling
/// thread between looks. A name of its own, so that async code never picks
/// it and blocks a thread of the cooperative pool.
public func blockUntil(
    _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(5),
    file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
) throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimedOut(description: "not within \(limit): \(what) (\(file):\(line))")
        }
        Thread.sleep(forTimeInterval: interval.inSeconds)
    }
}

extension Duration {
    /// The duration in seconds, as `Thread.sleep` takes it.
    fileprivate var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// A condition `waitUntil` or `blockUntil` waited for did not come in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let description: String
}
