import GatewayService
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

    func testAdmissionsRacingTheCloseAreEachRefusedOrCounted() async {
        let gate = RequestGate()
        let admitted = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var count = 0
                    for _ in 0..<10_000 where gate.admit() { count += 1 }
                    return count
                }
            }
            group.addTask {
                gate.close()
                return 0
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(gate.inProgress, admitted, "every admission that succeeded is counted, every refusal uncounted")
        XCTAssertFalse(gate.admit())
    }
}
