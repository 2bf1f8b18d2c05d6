@testable import HTTP2Client
import XCTest

/// The connection's table of open streams: a stream removed once, every
/// open stream visited, the bodies not yet sent counted.
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
        XCTAssertTrue(table.remove(all[1]) === all[1], "hands back the stream it held")
        XCTAssertNil(table.remove(all[1]), "a second removal finds nothing")
        XCTAssertEqual(table.count, 3)
        XCTAssertEqual(visited(table), Set([all[0], all[2], all[3]].map(ObjectIdentifier.init)))
    }

    func testAStreamRemovedBeforeAnotherWasInsertedRemovesNothing() {
        let all = streams(3)
        var table = InFlightStreams()
        table.insert(all[0])
        table.insert(all[1])
        XCTAssertNotNil(table.remove(all[0]))
        table.insert(all[2])
        XCTAssertNil(table.remove(all[0]), "removed already: the stream inserted after it stays")
        XCTAssertNil(table.remove(streams(1)[0]), "never inserted")
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
        XCTAssertNil(table.remove(all[0]))
    }

    /// What the open streams still need of the connection's flow-control
    /// window: each body whole when opened, less what nghttp2 took, less a
    /// removed stream's part never sent.
    func testUnsentBodyBytesFollowOpeningSendingAndRemoval() {
        let requests = [HTTP2Request(path: "/a", body: Array(repeating: 1, count: 800)),
                        HTTP2Request(path: "/b", body: Array(repeating: 2, count: 300)),
                        HTTP2Request(path: "/c")]
        let batch = BatchCompletion(requests: requests) { _ in }
        let all = (0..<3).map { PendingStream(batch: batch, index: $0, startedAt: .now) }
        var table = InFlightStreams()
        for stream in all { table.insert(stream) }
        XCTAssertEqual(table.unsentBodyBytes, 1_100, "a request without a body needs no window")

        var buffer = [UInt8](repeating: 0, count: 1_000)
        let first = buffer.withUnsafeMutableBufferPointer { all[0].nextBodyChunk(into: $0.baseAddress!, capacity: 500) }
        XCTAssertEqual(first.count, 500)
        XCTAssertFalse(first.done)
        table.bodySent(first.count, by: all[0])
        XCTAssertEqual(table.unsentBodyBytes, 600)
        XCTAssertEqual(all[0].unsentBodyCount, 300)

        XCTAssertNotNil(table.remove(all[0]), "reset with 300 bytes never sent")
        XCTAssertEqual(table.unsentBodyBytes, 300)
        XCTAssertNil(table.remove(all[0]))
        XCTAssertEqual(table.unsentBodyBytes, 300, "a second removal takes nothing off")

        let second = buffer.withUnsafeMutableBufferPointer { all[1].nextBodyChunk(into: $0.baseAddress!, capacity: 1_000) }
        XCTAssertTrue(second.done)
        table.bodySent(second.count, by: all[1])
        XCTAssertEqual(table.unsentBodyBytes, 0)
        XCTAssertNotNil(table.remove(all[1]))
        XCTAssertEqual(table.unsentBodyBytes, 0, "a body all sent is not taken off twice")

        table.insert(all[0])
        table.removeAll()
        XCTAssertEqual(table.unsentBodyBytes, 0)
    }
}
