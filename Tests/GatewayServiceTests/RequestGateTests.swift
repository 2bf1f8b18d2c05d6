import GatewayService
import Synchronization
import XCTest

/// The shutdown's gate: a request is either refused or counted, never
/// admitted unseen by the drain.
final class RequestGateTests: XCTestCase {
    func testAdmittedRequestsAreCountedUntilReleasedAndNoneIsAdmittedAfterClosing() {
        let gate = RequestGate()
        XCTAssertTrue(gate.admit())
        XCTAssertTrue(gate.admit())
        XCTAssertEqual(gate.inProgress, 2)
        gate.release()
        gate.close()
        XCTAssertTrue(gate.isClosed)
        XCTAssertFalse(gate.admit(), "closed: refused")
        XCTAssertEqual(gate.inProgress, 1, "the one admitted before closing is still counted")
        gate.release()
        XCTAssertEqual(gate.inProgress, 0)
    }

    /// The shutdown delay: announced, the gate says "shutting down" and
    /// still admits and counts; closing then refuses.
    func testAnAnnouncedShutdownStillAdmitsUntilTheGateCloses() {
        let gate = RequestGate()
        XCTAssertFalse(gate.isShuttingDown)
        gate.announceShutdown()
        XCTAssertTrue(gate.isShuttingDown)
        XCTAssertFalse(gate.isClosed)
        XCTAssertTrue(gate.admit(), "announced only: still admitted")
        XCTAssertEqual(gate.inProgress, 1, "the announcement is not counted as a request")
        gate.close()
        XCTAssertFalse(gate.admit())
        XCTAssertEqual(gate.inProgress, 1)
    }

    func testClosingAlsoAnnouncesTheShutdown() {
        let gate = RequestGate()
        gate.close()
        XCTAssertTrue(gate.isShuttingDown)
        XCTAssertEqual(gate.inProgress, 0)
    }

    /// The drain's question: once it has seen nothing in progress after
    /// closing, can anything still be admitted? Admitters race the close;
    /// each admission that succeeds after the drain saw zero is a request
    /// the drain would never wait for. A check-then-count gate fails this.
    func testNothingIsAdmittedAfterTheDrainSawTheGateClosedAndEmpty() async {
        for _ in 0..<20 {
            let gate = RequestGate()
            let drained = DrainSeen()
            let lateAdmissions = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        var late = 0
                        for _ in 0..<20_000 {
                            guard gate.admit() else { continue }
                            if drained.value.load(ordering: .sequentiallyConsistent) { late += 1 }
                            gate.release()
                        }
                        return late
                    }
                }
                group.addTask {
                    gate.close()
                    while gate.inProgress > 0 { await Task.yield() }
                    drained.value.store(true, ordering: .sequentiallyConsistent)
                    return 0
                }
                return await group.reduce(0, +)
            }
            XCTAssertEqual(lateAdmissions, 0, "admitted after the drain saw the gate closed and empty")
            XCTAssertEqual(gate.inProgress, 0)
        }
    }
}

/// Set by the drain once it saw the closed gate empty.
private final class DrainSeen: Sendable {
    let value = Atomic<Bool>(false)
}
