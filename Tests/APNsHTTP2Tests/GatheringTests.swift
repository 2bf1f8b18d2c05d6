import PushGWSync
import XCTest

/// Parts finishing in any order give every result in position order, once.
final class GatheringTests: XCTestCase {
    func testTheLastPartGetsEveryResultInOrder() {
        var gathering = Gathering<String>(count: 5, parts: 3, missing: "missing")
        XCTAssertNil(gathering.add([1, 3], ["b", "d"]))
        XCTAssertNil(gathering.add([4], ["e"]))
        XCTAssertEqual(gathering.add([0, 2], ["a", "c"]), ["a", "b", "c", "d", "e"])
    }

    func testAPositionNoPartBroughtIsStillAnswered() {
        var gathering = Gathering<Int>(count: 3, parts: 1, missing: -1)
        XCTAssertEqual(gathering.add([0, 2], [10, 12]), [10, -1, 12])
    }
}
