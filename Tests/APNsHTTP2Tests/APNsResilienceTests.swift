import APNsHTTP2
@testable import HTTP2Client
#if canImport(Glibc)
import Glibc
#endif
import APNsSimulator
import PayloadBuilder
import XCTest

/// A GOAWAY or a dropped connection in the middle of 10,000 sends loses
/// nothing: every send ends with exactly one outcome, nothing is accepted
/// twice, and nothing the simulator accepted is reported failed.
final class APNsResilienceTests: XCTestCase {
    private static let total = 10_000

    func testAGoAwayEveryFewThousandStreamsLosesNothing() async throws {
        try await goAwayEveryThousandStreamsLosesNothing(streamLimit: 1000)
    }

    /// With a small stream limit every read of answers refills streams and
    /// writes them before the rest of the read is processed: the GOAWAYs
    /// and drops then land between those writes and the reads.
    func testAGoAwayEveryFewThousandStreamsLosesNothingWithTwentyStreams() async throws {
        try await goAwayEveryThousandStreamsLosesNothing(streamLimit: 20)
    }

    /// GOAWAYs in quick succession (every 40 streams) while 3,000 large
    /// requests (over 3 KB each) keep the socket full and refills queued in
    /// nghttp2: nothing is lost and nothing is delivered twice.
    func testGoAwaysWhileLargeRequestsFillTheSocketLoseNothing() async throws {
        let testbed = try APNsTestbed { $0.maxConcurrentStreams = 20 }
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 40))
        let client = try testbed.client(connections: 1)
        defer { client.shutdown() }
        let large = try testbed.requests(count: 3_000, text: String(repeating: "Xin chào thế giới 👋 ", count: 200))
        XCTAssertGreaterThan(large[0].body.count, 3_000)
        let outcomes = await send(large, with: client)
        XCTAssertEqual(acceptedIDs(outcomes).count, large.count, "every request is sent again until accepted: \(failures(outcomes))")
        XCTAssertEqual(testbed.simulator.statistics.duplicateAcceptedIDs, [], "nothing is delivered twice")
    }

    func testADroppedConnectionMidStreamLosesNothingSilently() async throws {
        try await droppedConnectionLosesNothingSilently(streamLimit: 1000)
    }

    func testADroppedConnectionMidStreamLosesNothingSilentlyWithTwentyStreams() async throws {
        try await droppedConnectionLosesNothingSilently(streamLimit: 20)
    }

    private func goAwayEveryThousandStreamsLosesNothing(streamLimit: Int) async throws {
        let testbed = try APNsTestbed { $0.maxConcurrentStreams = streamLimit }
        testbed.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 1_000))
        let client = try testbed.client(connections: 2)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: Self.total)
        let outcomes = await send(requests, with: client)

        XCTAssertEqual(outcomes.count, Self.total, "every send ends with one outcome")
        let accepted = acceptedIDs(outcomes)
        XCTAssertEqual(accepted.count, Self.total, "a GOAWAY'd stream is re-sent, never lost: \(failures(outcomes))")
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.acceptedTotal, Self.total)
        XCTAssertEqual(statistics.duplicateAcceptedIDs, [], "nothing is delivered twice")
        XCTAssertGreaterThanOrEqual(statistics.goAwaysSent, 3)
        XCTAssertEqual(Set(statistics.acceptedIDs), Set(accepted))
    }

    private func droppedConnectionLosesNothingSilently(streamLimit: Int) async throws {
        // Other suites may ignore SIGPIPE for the whole process; this one must
        // not depend on it: writing to the dropped socket must not kill us.
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let testbed = try APNsTestbed { $0.maxConcurrentStreams = streamLimit }
        testbed.simulator.setFaults(APNsSimulatorFaults(dropConnectionAfterStreams: 3_000))
        let client = try testbed.client(connections: 1)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: Self.total)
        let outcomes = await send(requests, with: client)

        XCTAssertEqual(outcomes.count, Self.total, "every send ends with one outcome")
        let accepted = Set(acceptedIDs(outcomes))
        let lost = outcomes.compactMap { outcome -> TransportError? in
            if case let .failure(error) = outcome { return error }
            return nil
        }
        XCTAssertEqual(accepted.count + lost.count, Self.total)
        XCTAssertTrue(lost.allSatisfy { $0.isRetryable }, "a dropped connection is a retryable failure: \(Set(lost.map(\.kind)))")
        XCTAssertGreaterThan(accepted.count, 0)
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.duplicateAcceptedIDs, [])
        // Whatever we call accepted, the simulator accepted.
        XCTAssertTrue(accepted.isSubset(of: Set(statistics.acceptedIDs)))
        XCTAssertGreaterThanOrEqual(statistics.connectionsDropped, 1)

        // Resending what failed delivers the rest: nothing was lost.
        let failedIndices = outcomes.indices.filter { if case .failure = outcomes[$0] { return true } else { return false } }
        testbed.simulator.setFaults(.none)
        let retried = await client.send(failedIndices.map { requests[$0] })
        XCTAssertEqual(acceptedIDs(retried).count, failedIndices.count)
        XCTAssertEqual(Set(testbed.simulator.statistics.acceptedIDs).count, Self.total)
    }

    // MARK: helpers

    /// Sends in batches of 500 (one event's devices), 4 batches at a time.
    private func send(_ requests: [ProviderRequest], with client: APNsClient) async -> [Result<APNsOutcome, TransportError>] {
        let batches = stride(from: 0, to: requests.count, by: 500).map { Array(requests[$0..<min($0 + 500, requests.count)]) }
        return await withTaskGroup(of: (Int, [Result<APNsOutcome, TransportError>]).self) { group in
            var results = [[Result<APNsOutcome, TransportError>]](repeating: [], count: batches.count)
            var next = 0
            for _ in 0..<min(4, batches.count) {
                let index = next
                next += 1
                group.addTask { (index, await client.send(batches[index])) }
            }
            while let (index, outcome) = await group.next() {
                results[index] = outcome
                if next < batches.count {
                    let submitted = next
                    next += 1
                    group.addTask { (submitted, await client.send(batches[submitted])) }
                }
            }
            return results.flatMap { $0 }
        }
    }

    private func acceptedIDs(_ outcomes: [Result<APNsOutcome, TransportError>]) -> [String] {
        outcomes.compactMap { outcome in
            if case let .success(.accepted(apnsID)) = outcome { return apnsID }
            return nil
        }
    }

    private func failures(_ outcomes: [Result<APNsOutcome, TransportError>]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for outcome in outcomes {
            switch outcome {
            case let .failure(error): counts[error.kind.name + " (" + String(error.detail.prefix(120)) + ")", default: 0] += 1
            case let .success(.rejected(rejection)): counts[rejection.reason.rawValue, default: 0] += 1
            case .success(.accepted): break
            }
        }
        return counts
    }
}
