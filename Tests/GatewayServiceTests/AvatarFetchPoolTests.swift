import Dispatch
import Foundation
@testable import GatewayService
import PushGWSync
import XCTest
import TestSupport

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

    private func job(_ name: String, _ journal: Journal, host: String = "", blockingOn gate: DispatchSemaphore? = nil) -> AvatarFetchPool.Job {
        AvatarFetchPool.Job(
            host: host,
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
        // Staleness is measured on the pool's own clock, the continuous
        // clock: the job has to be queued for longer than `staleAfter`.
        try await Task.sleep(for: .milliseconds(250))
        gate.signal()
        try await waitUntil("every job settled") { journal.snapshot.count == 2 }
        XCTAssertEqual(journal.snapshot, ["running": "ran", "waits too long": "abandoned: timeout"])
    }

    func testTheDefaultQueueLimitIs64PerThread() {
        XCTAssertEqual(AvatarFetchPool(limit: 4, staleAfter: .seconds(3)).queueLimit, 256)
    }

    /// One slow host holds at most half the threads: another host's job
    /// runs at once while that host's others wait (regression: twelve
    /// avatars on a slow host made every other avatar time out).
    func testASlowHostHoldsAtMostHalfTheThreadsAndOtherHostsPassIt() async throws {
        let pool = AvatarFetchPool(limit: 4, staleAfter: .seconds(60))
        XCTAssertEqual(pool.perHostLimit, 2)
        let journal = Journal()
        let gate = DispatchSemaphore(value: 0)
        for index in 1...4 { pool.submit(job("slow \(index)", journal, host: "slow.example", blockingOn: gate)) }
        try await waitUntil("two slow jobs run, two wait for their host") { pool.waitingJobs == 2 }
        pool.submit(job("fast", journal, host: "fast.example"))
        try await waitUntil("the other host's job ran past them") { journal.snapshot["fast"] == "ran" }
        XCTAssertEqual(journal.snapshot, ["fast": "ran"])
        XCTAssertEqual(pool.waitingJobs, 2)
        for _ in 1...4 { gate.signal() }
        try await waitUntil("every job settled") { journal.snapshot.count == 5 }
        XCTAssertEqual(Set(journal.snapshot.values), ["ran"])
    }
}
