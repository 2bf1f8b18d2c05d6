import PushGWSync
@testable import HTTP2Client
import XCTest

/// Parts finishing in any order give every result in position order, once.
final class GatheringTests: XCTestCase {
    func testTheLastPartGetsEveryResultInOrder() {
        var gathering = Gathering<String>(count: 5, parts: 3, missing: "missing")
        XCTAssertNil(gathering.add([1, 3], ["b", "d"]))
        XCTAssertNil(gathering.add([4], ["e"]))
        XCTAssertEqual(gathering.add([0, 2], ["a", "c"]), ["a", "b", "c", "d", "e"])
    }

    func testMovedPartsLeaveEmptyAndGiveTheSameResults() {
        var gathering = Gathering<[Int]>(count: 4, parts: 2, missing: [])
        var first = [[1], [3]]
        XCTAssertNil(gathering.add([1, 3], moving: &first))
        XCTAssertTrue(first.isEmpty)
        // A part with more results than positions: the extra one is dropped.
        var second = [[0], [2], [99]]
        XCTAssertEqual(gathering.add([0, 2], moving: &second), [[0], [1], [2], [3]])
        XCTAssertTrue(second.isEmpty)
    }

    func testAPositionNoPartBroughtIsStillAnswered() {
        var gathering = Gathering<Int>(count: 3, parts: 1, missing: -1)
        XCTAssertEqual(gathering.add([0, 2], [10, 12]), [10, -1, 12])
    }
}
