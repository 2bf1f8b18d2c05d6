import Dispatch
import Foundation
@testable import GatewayService
import PushGWSync
import XCTest

/// The avatar download pool: its queue is bounded in length and in waiting
/// time, so a flood of distinct avatar URLs behind a dead host holds
/// neither unbounded memory nor the threads' time.
final class AvatarFetchPoolTests: XCTestCase {
    /// Records what happened to each job by name.
    private final class Journal: Sendable {
        let entries = Locked<[String: String]>([:])
        func note(_ name: String, _ what: String) { entries.withLock { $0[name] = what } }
        var snapshot: [String: String] { entries.withLock { $0 } }
    }

    private func job(_ name: String, _ journal: Journal, blockingOn gate: DispatchSemaphore? = nil) -> AvatarFetchPool.Job {
        AvatarFetchPool.Job(
            run: {
                gate?.wait()
                journal.note(name, "ran")
            },
            abandon: { journal.note(name, "abandoned: \($0.rawValue)") })
    }

    func testAJobBeyondTheQueueLimitIsAbandonedAtOnceAsQueueFull() async throws {
        let pool = AvatarFetchPool(limit: 1, queueLimit: 2, staleAfter: .seconds(60))
        let journal = Journal()
        let gate = DispatchSemaphore(value: 0)
        pool.submit(job("running", journal, blockingOn: gate))
        try await waitUntil("the first job holds the only thread") { pool.waitingJobs == 0 }
        pool.submit(job("queued 1", journal))
        pool.submit(job("queued 2", journal))
        pool.submit(job("one too many", journal))
        XCTAssertEqual(journal.snapshot, ["one too many": "abandoned: queue_full"])
        gate.signal()
        try await waitUntil("every job settled") { journal.snapshot.count == 4 }
        XCTAssertEqual(journal.snapshot, ["running": "ran", "queued 1": "ran", "queued 2": "ran",
                                          "one too many": "abandoned: queue_full"])
    }

    func testAJobThatWaitedPastItsStalenessIsAbandonedAsTimeoutNotRun() async throws {
        let pool = AvatarFetchPool(limit: 1, staleAfter: .milliseconds(100))
        let journal = Journal()
        let gate = DispatchSemaphore(value: 0)
        pool.submit(job("running", journal, blockingOn: gate))
        try await waitUntil("the first job holds the only thread") { pool.waitingJobs == 0 }
        pool.submit(job("waits too long", journal))
        try await Task.sleep(for: .milliseconds(250))
        gate.signal()
        try await waitUntil("every job settled") { journal.snapshot.count == 2 }
        XCTAssertEqual(journal.snapshot, ["running": "ran", "waits too long": "abandoned: timeout"])
    }

    func testTheDefaultQueueLimitIs64PerThread() {
        XCTAssertEqual(AvatarFetchPool(limit: 4, staleAfter: .seconds(3)).queueLimit, 256)
    }
}
