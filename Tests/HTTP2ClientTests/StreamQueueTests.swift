@testable import HTTP2Client
import XCTest

/// A connection's waiting requests, without a socket: taken from the inbox
/// in order, handed out first come first served, and given back to fail
/// when their time is up or the connection stops.
final class StreamQueueTests: XCTestCase {
    private let start = ContinuousClock.now

    /// Streams whose timeouts are `seconds`, started at `start`.
    private func streams(_ seconds: [Int]) -> [PendingStream?] {
        let batch = BatchCompletion(requests: seconds.map { HTTP2Request(path: "/", body: Array(repeating: 1, count: $0),
                                                                         timeout: .seconds($0)) }) { _ in }
        return seconds.indices.map { PendingStream(batch: batch, index: $0, startedAt: start) }
    }

    private func queue(_ streams: [PendingStream?]) -> StreamQueue {
        var queue = StreamQueue()
        var inbox = streams
        queue.take(from: &inbox)
        XCTAssertTrue(inbox.isEmpty, "the inbox is left empty")
        XCTAssertEqual(queue.admitTaken(), !streams.isEmpty)
        return queue
    }

    func testStreamsGoOutInTheOrderQueuedAcrossTakes() {
        let first = streams([1, 2])
        let second = streams([3])
        var queue = queue(first)
        XCTAssertEqual(queue.firstBodyCount, 1)
        XCTAssertTrue(queue.removeFirst() === first[0])
        var inbox = second
        queue.take(from: &inbox)
        XCTAssertTrue(queue.admitTaken())
        XCTAssertEqual(queue.count, 2)
        XCTAssertTrue(queue.removeFirst() === first[1])
        queue.compact()
        XCTAssertTrue(queue.removeFirst() === second[0])
        XCTAssertNil(queue.removeFirst())
        XCTAssertNil(queue.firstBodyCount)
        XCTAssertTrue(queue.isEmpty)
        var empty: [PendingStream?] = []
        queue.take(from: &empty)
        XCTAssertFalse(queue.admitTaken(), "nothing queued")
    }

    func testExpiredStreamsAreTakenOutWhereverTheyAreAndTheRestKeepTheirOrder() {
        let all = streams([5, 1, 9, 2, 7])
        var queue = queue(all)
        _ = queue.removeFirst()
        XCTAssertEqual(queue.removeExpired(sinceOrigin: start + .milliseconds(500) - PendingStream.origin).count, 0)
        let expired = queue.removeExpired(sinceOrigin: start + .seconds(2) - PendingStream.origin)
        XCTAssertEqual(expired.map(ObjectIdentifier.init), [all[1]!, all[3]!].map(ObjectIdentifier.init))
        XCTAssertEqual(queue.count, 2)
        XCTAssertTrue(queue.removeFirst() === all[2])
        XCTAssertTrue(queue.removeFirst() === all[4])
    }

    func testRemoveAllGivesEveryWaitingStreamOnce() {
        let all = streams([1, 2, 3])
        var queue = queue(all)
        _ = queue.removeFirst()
        queue.append(contentsOf: streams([4]))
        let removed = queue.removeAll()
        XCTAssertEqual(removed.count, 3)
        XCTAssertTrue(removed[0] === all[1] && removed[1] === all[2])
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.removeAll().count, 0)
    }
}
