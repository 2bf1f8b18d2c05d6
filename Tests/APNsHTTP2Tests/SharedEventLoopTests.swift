#if canImport(Glibc)
import Glibc
#endif
import EventLoops
import APNsHTTP2
@testable import HTTP2Client
import Foundation
import PushGWSync
import Synchronization
import XCTest
import TestSupport

/// `EventLoop` shared by several owners, as the gateway runs it: work
/// performed on its thread, sources turned until detached, and pools whose
/// connections run on loops they were given.
final class SharedEventLoopTests: XCTestCase {
    func testPerformRunsOnTheLoopThreadAndReturnsWhenDone() throws {
        let loop = try EventLoop(name: "test-loop")
        defer { loop.retire() }
        XCTAssertFalse(loop.isCurrent)
        let ranOnLoop = Atomic<Int>(0)
        loop.perform { ranOnLoop.store(loop.isCurrent ? 1 : 2, ordering: .relaxed) }
        XCTAssertEqual(ranOnLoop.load(ordering: .relaxed), 1, "ran on the loop thread, before perform returned")
        // From the loop thread itself, perform runs the work at once.
        let nested = Atomic<Int>(0)
        loop.perform { loop.perform { nested.store(1, ordering: .relaxed) } }
        XCTAssertEqual(nested.load(ordering: .relaxed), 1)
    }

    /// The kernel knows the loop's thread by the loop's name (what `top -H`
    /// and perf show), cut to Linux's 15 bytes.
    func testTheLoopThreadCarriesItsNameForTheKernel() throws {
        let loop = try EventLoop(name: "test-loop-named-and-cut")
        defer { loop.retire() }
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").map { task in
            try String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertTrue(names.contains("test-loop-named"), "\(names)")
    }

    func testASourceTurnsOnTheLoopWhenItsDescriptorIsReadableUntilDetached() throws {
        let loop = try EventLoop(name: "test-loop")
        defer { loop.retire() }
        let source = try PipeSource(loop: loop)
        XCTAssertTrue(loop.attach(source))
        try blockUntil("the source turns") { source.turns.load(ordering: .relaxed) > 0 }
        XCTAssertEqual(source.offLoopTurns.load(ordering: .relaxed), 0, "every turn on the loop thread")
        // A byte written to the descriptor is read on a later turn.
        source.poke()
        try blockUntil("the poke is read") { source.bytesRead.load(ordering: .relaxed) == 1 }
        loop.detach(source)
        let turnsAtDetach = source.turns.load(ordering: .relaxed)
        source.poke()
        // A second source poked after the first: once the loop has read it,
        // the loop has polled since the first became readable.
        let witness = try PipeSource(loop: loop)
        XCTAssertTrue(loop.attach(witness))
        witness.poke()
        try blockUntil("the loop reads the second source") { witness.bytesRead.load(ordering: .relaxed) == 1 }
        loop.perform {}  // and has finished that turn
        loop.detach(witness)
        XCTAssertEqual(source.turns.load(ordering: .relaxed), turnsAtDetach, "no turn once detach returned")
        XCTAssertEqual(source.bytesRead.load(ordering: .relaxed), 1)
    }

    /// A send made on a loop's own thread goes to the pool's connection on
    /// that loop and is answered there: no thread is crossed either way.
    func testASendFromALoopThreadIsServedByThatLoopsConnection() async throws {
        let testbed = try APNsTestbed()
        let loops = try (0..<2).map { try EventLoop(name: "test-loop-\($0)") }
        defer { for loop in loops { loop.retire() } }
        let clock = testbed.clock
        let client = try APNsClient(origin: testbed.simulator.url, tls: TLSConfiguration(caFile: testbed.caFile),
                                    tokens: testbed.tokens, connections: 2, loops: loops, now: { clock.epochSeconds })
        // Open both connections (a batch of two spreads over them).
        let warmUp = await client.send(try testbed.requests(count: 2, eventID: "warm:1"))
        XCTAssertEqual(warmUp.count, 2)
        try await waitUntil("both connections are open") { client.openConnections == 2 }
        let requests = try testbed.requests(count: 20, eventID: "local:1")
        for (index, loop) in loops.enumerated() {
            for request in requests.prefix(10) {
                let answered = await withCheckedContinuation { (continuation: CheckedContinuation<(Bool, Bool), Never>) in
                    loop.perform {
                        client.send([request]) { results in
                            let accepted = if case .success(.accepted) = results[0] { true } else { false }
                            continuation.resume(returning: (accepted, loop.isCurrent))
                        }
                    }
                }
                XCTAssertTrue(answered.0, "accepted (loop \(index))")
                XCTAssertTrue(answered.1, "answered on the loop it was sent from (loop \(index))")
            }
        }
        client.shutdown()
        // The pool does not retire loops it was given: they still run work.
        let stillRunning = Atomic<Bool>(false)
        loops[0].perform { stillRunning.store(loops[0].isCurrent, ordering: .relaxed) }
        XCTAssertTrue(stillRunning.load(ordering: .relaxed))
    }
}

/// A source around a pipe: counts its turns and reads what is written to
/// the pipe; it sets no deadline of its own (the loop's idle turn applies).
private final class PipeSource: EventLoopSource {
    let turns = Atomic<Int>(0)
    let offLoopTurns = Atomic<Int>(0)
    let bytesRead = Atomic<Int>(0)
    private let reader: Int32
    private let writer: Int32
    private let loop: EventLoop

    init(loop: EventLoop) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        reader = ends[0]
        writer = ends[1]
        self.loop = loop
    }

    deinit {
        close(reader)
        close(writer)
    }

    func poke() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    func turn() -> EventLoopSourceTurn {
        turns.add(1, ordering: .relaxed)
        if !loop.isCurrent { offLoopTurns.add(1, ordering: .relaxed) }
        var byte: UInt8 = 0
        while read(reader, &byte, 1) == 1 { bytesRead.add(1, ordering: .relaxed) }
        return EventLoopSourceTurn(descriptor: reader, timeoutMilliseconds: 60_000)
    }
}
