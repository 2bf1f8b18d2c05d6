@testable import HTTP2Client
import XCTest

/// Bodies against the connection window, without a socket: a stream opens
/// while the window and the lookahead have room for its body; a body the
/// window would cut waits whole, and the waiting bodies go back in order
/// once the window widens, or cut once they have waited too long.
final class BodyFlowControlTests: XCTestCase {
    private let start = ContinuousClock.now
    private let lookahead = BodyFlowControl.lookahead

    func testABodyWaitsForRoomInTheWindowUnlessNothingElseCouldMakeRoom() {
        XCTAssertTrue(BodyFlowControl.opensStream(body: 800, unsent: 64_000, window: 64_800 - lookahead, streamsOpen: 80))
        XCTAssertFalse(BodyFlowControl.opensStream(body: 800, unsent: 64_001, window: 64_800 - lookahead, streamsOpen: 80))
        XCTAssertFalse(BodyFlowControl.opensStream(body: 1_491, unsent: 0, window: 1_422 - lookahead, streamsOpen: 3),
                       "open streams will be answered, and the server widens the window as it reads")
        XCTAssertTrue(BodyFlowControl.opensStream(body: 1_491, unsent: 0, window: 1_422 - lookahead, streamsOpen: 0),
                      "nothing else would widen it")
        XCTAssertTrue(BodyFlowControl.opensStream(body: 0, unsent: 70_000, window: -lookahead, streamsOpen: 900), "no body, no window needed")
        XCTAssertTrue(BodyFlowControl.opensStream(body: 70_000, unsent: 800, window: 60_000 - lookahead, streamsOpen: 2),
                      "a body beyond a whole default window goes in pieces anyway")
    }

    func testWaitingBodiesGoBackInOrderOnceTheWindowWidens() {
        var flow = BodyFlowControl()
        XCTAssertFalse(flow.defers(1, waitsForWindow: false, window: 900, now: start), "a body the window takes goes")
        XCTAssertTrue(flow.defers(3, waitsForWindow: true, window: 500, now: start))
        XCTAssertTrue(flow.defers(5, waitsForWindow: true, window: 300, now: start))
        XCTAssertEqual(flow.deferred, [3, 5])
        XCTAssertEqual(flow.resumable(window: 300), [], "not wider than when they last waited")
        XCTAssertFalse(flow.takeWindowOpened())
        flow.windowUpdated()
        XCTAssertTrue(flow.takeWindowOpened(), "bodies wait: write them now")
        XCTAssertFalse(flow.takeWindowOpened(), "told once")
        XCTAssertEqual(flow.resumable(window: 40_000), [3, 5])
        XCTAssertEqual(flow.deferred, [])
        XCTAssertEqual(flow.resumable(window: 80_000), [], "nothing left")
        flow.windowUpdated()
        XCTAssertFalse(flow.takeWindowOpened(), "no body waits")
    }

    func testBodiesThatWaitTooLongGoCutAndAfterTwiceForTheRestOfTheConnection() {
        var flow = BodyFlowControl()
        flow.roundTrip = .milliseconds(50)
        XCTAssertEqual(flow.waitLimit, .milliseconds(200), "four round trips")
        XCTAssertTrue(flow.defers(1, waitsForWindow: true, window: 100, now: start))
        XCTAssertTrue(flow.defers(3, waitsForWindow: true, window: 100, now: start + .milliseconds(150)))
        XCTAssertEqual(flow.expired(now: start + .milliseconds(199)), [])
        XCTAssertEqual(flow.expired(now: start + .milliseconds(200)), [1, 3], "counted from the first that waited")
        flow.forcedCut(resumed: 2)
        XCTAssertTrue(flow.cutsAtWindowEdge)
        XCTAssertFalse(flow.defers(5, waitsForWindow: true, window: 100, now: start), "cut until the window widens")
        flow.windowUpdated()
        XCTAssertFalse(flow.cutsAtWindowEdge, "the server does widen it: bodies wait again")
        XCTAssertTrue(flow.defers(7, waitsForWindow: true, window: 100, now: start + .seconds(1)))
        XCTAssertEqual(flow.expired(now: start + .seconds(2)), [7])
        flow.forcedCut(resumed: 1)
        flow.windowUpdated()
        XCTAssertTrue(flow.cutsAtWindowEdge, "after two forced cuts, for good")
        XCTAssertFalse(flow.defers(9, waitsForWindow: true, window: 100, now: start))
    }

    func testAForcedResumeOfOnlyClosedStreamsChangesNothing() {
        var flow = BodyFlowControl()
        XCTAssertEqual(flow.waitLimit, .milliseconds(100), "at least 100 ms")
        XCTAssertTrue(flow.defers(1, waitsForWindow: true, window: 100, now: start))
        let expired = flow.expired(now: start + .seconds(1))
        XCTAssertEqual(expired, [1])
        flow.forcedCut(resumed: 0)
        XCTAssertFalse(flow.cutsAtWindowEdge, "a stream closed meanwhile was not stuck")
        flow.reuse(expired)
        XCTAssertEqual(flow.deferred, [], "the list handed back is emptied")
        XCTAssertTrue(flow.defers(3, waitsForWindow: true, window: 100, now: start + .seconds(2)))
        XCTAssertEqual(flow.expired(now: start + .seconds(2) + .milliseconds(99)), [], "the wait starts over")
    }
}
