@testable import GatewayHTTP
import XCTest

/// The request deadlines of the ingest, without sockets.
final class ConnectionTableTests: XCTestCase {
    private let start = ContinuousClock.now

    func testAConnectionIsOverdueWhenItsFirstRequestTakesLongerThanTheTimeout() {
        var table = ConnectionTable(requestTimeout: .seconds(10))
        table.opened(1, socket: 11, now: start)
        table.opened(2, socket: 12, now: start + .seconds(5))
        XCTAssertEqual(table.overdue(now: start + .seconds(9)), [])
        XCTAssertEqual(table.overdue(now: start + .seconds(10)), [11])
        XCTAssertEqual(table.overdue(now: start + .seconds(11)), [], "each socket is returned once")
        XCTAssertEqual(table.overdue(now: start + .seconds(15)), [12])
        XCTAssertEqual(table.count, 2, "cut connections stay until libmicrohttpd reports them closed")
    }

    func testNoDeadlineWhileTheHandlerHasTheRequest() {
        var table = ConnectionTable(requestTimeout: .seconds(10))
        let entry = table.opened(1, socket: 11, now: start)
        entry.answering()
        XCTAssertEqual(table.overdue(now: start + .seconds(60)), [], "providers may take their time")
    }

    func testTheNextRequestIsDueWithinTheTimeoutOfTheLastResponse() {
        var table = ConnectionTable(requestTimeout: .seconds(10))
        let entry = table.opened(1, socket: 11, now: start)
        entry.answering()
        entry.completed(now: start + .seconds(30))
        XCTAssertEqual(table.overdue(now: start + .seconds(39)), [])
        XCTAssertEqual(table.overdue(now: start + .seconds(40)), [11])
    }

    func testAClosedConnectionIsForgottenAndNeverCut() {
        var table = ConnectionTable(requestTimeout: .seconds(1))
        let entry = table.opened(1, socket: 11, now: start)
        table.closed(1)
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.overdue(now: start + .seconds(5)), [])
        entry.completed(now: start)
        entry.answering()
        XCTAssertEqual(table.count, 0, "late notices about a closed connection change nothing")
        XCTAssertEqual(table.overdue(now: start + .seconds(5)), [], "nor make it cut")
    }

    func testAnEntryIsCutOnceAndARequestReceivedFirstIsNotCut() {
        var table = ConnectionTable(requestTimeout: .seconds(10))
        let entry = table.opened(1, socket: 11, now: start)
        entry.targetArrived(length: 8)
        XCTAssertEqual(entry.targetLength, 8)
        XCTAssertTrue(entry.cutIfOverdue(now: start + .seconds(10)))
        XCTAssertFalse(entry.cutIfOverdue(now: start + .seconds(11)), "cut once")
        entry.completed(now: start + .seconds(20))
        XCTAssertNil(entry.targetLength, "a new request has no target yet")
        entry.answering()
        XCTAssertFalse(entry.cutIfOverdue(now: start + .seconds(60)), "the handler has the request")
    }
}
