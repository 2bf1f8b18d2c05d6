@testable import APNsHTTP2
import XCTest

/// The connection's table of open streams: slots reused, a stream removed
/// once, every open stream visited.
final class InFlightStreamsTests: XCTestCase {
    private func streams(_ count: Int) -> [PendingStream] {
        let batch = BatchCompletion(requests: Array(repeating: HTTP2Request(path: "/"), count: count)) { _ in }
        return (0..<count).map { PendingStream(batch: batch, index: $0, startedAt: .now) }
    }

    private func visited(_ table: InFlightStreams) -> Set<ObjectIdentifier> {
        var seen = Set<ObjectIdentifier>()
        table.forEach { seen.insert(ObjectIdentifier($0)) }
        return seen
    }

    func testStreamsAreVisitedUntilRemovedAndRemovedOnce() {
        let all = streams(4)
        var table = InFlightStreams()
        for stream in all { table.insert(stream) }
        XCTAssertEqual(table.count, 4)
        XCTAssertTrue(table.remove(all[1]))
        XCTAssertFalse(table.remove(all[1]), "a second removal finds nothing")
        XCTAssertEqual(all[1].slot, -1)
        XCTAssertEqual(table.count, 3)
        XCTAssertEqual(visited(table), Set([all[0], all[2], all[3]].map(ObjectIdentifier.init)))
    }

    func testAFreedSlotIsReusedAndNeverConfusedWithItsFormerStream() {
        let all = streams(3)
        var table = InFlightStreams()
        table.insert(all[0])
        table.insert(all[1])
        XCTAssertTrue(table.remove(all[0]))
        table.insert(all[2])
        XCTAssertEqual(all[2].slot, 0, "the freed slot is taken again")
        // A stream that was never in the table, but claims the same slot, is not removed.
        let stranger = streams(1)[0]
        stranger.slot = 0
        XCTAssertFalse(table.remove(stranger))
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(visited(table), Set([all[1], all[2]].map(ObjectIdentifier.init)))
    }

    func testRemovingAllEmptiesTheTable() {
        let all = streams(3)
        var table = InFlightStreams()
        for stream in all { table.insert(stream) }
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertEqual(visited(table), [])
        XCTAssertFalse(table.remove(all[0]))
        XCTAssertEqual(all.map(\.slot), [-1, -1, -1])
    }
}
