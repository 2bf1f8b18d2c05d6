@testable import HTTP2Client
import PushGWSync
import XCTest

/// A batch's results are delivered once, in request order, when the last
/// one is in; a batch of one takes a shortcut (no array to gather into)
/// that must deliver what the general rule would.
final class BatchCompletionTests: XCTestCase {
    private typealias Outcome = Result<HTTP2Response, TransportError>

    /// Completes a batch of `count` with `calls` (index, outcome) in that
    /// order; returns every delivery.
    private func deliveries(count: Int, _ calls: [(Int, Outcome)]) -> [[Outcome]] {
        let delivered = Locked<[[Outcome]]>([])
        let requests = Array(repeating: HTTP2Request(path: "/"), count: count)
        let batch = BatchCompletion(requests: requests) { results in delivered.withLock { $0.append(results) } }
        for (index, outcome) in calls { batch.complete(index, outcome) }
        return delivered.withLock { $0 }
    }

    func testABatchOfOneDeliversOnceLikeTheGeneralRule() {
        let first: Outcome = .success(HTTP2Response(status: 200, body: Array("ok".utf8)))
        let second: Outcome = .failure(TransportError(.timeout, "late"))
        XCTAssertEqual(deliveries(count: 1, [(0, first)]), [[first]])
        XCTAssertEqual(deliveries(count: 1, [(0, first), (0, second)]), [[first]], "a second finish is ignored")
        XCTAssertEqual(deliveries(count: 1, []), [], "nothing before the result")
        // The general rule, on a batch of two, for the same sequence of one position.
        XCTAssertEqual(deliveries(count: 2, [(1, first), (1, second), (0, second)]), [[second, first]])
        XCTAssertEqual(deliveries(count: 0, []), [[]], "an empty batch is delivered at once")
    }

    func testAShareOfALargerGroupDeliversTheResultsOfItsOwnRequests() {
        let delivered = Locked<[[Outcome]]>([])
        let requests = (0..<10).map { HTTP2Request(path: "/\($0)") }
        let batch = BatchCompletion(requests: requests, range: 4..<7) { results in delivered.withLock { $0.append(results) } }
        let outcomes: [Outcome] = (0..<3).map { .success(HTTP2Response(status: 200 + $0)) }
        batch.complete(6, outcomes[2])
        batch.complete(4, outcomes[0])
        XCTAssertEqual(delivered.withLock { $0 }, [], "one missing: nothing yet")
        batch.complete(5, outcomes[1])
        XCTAssertEqual(delivered.withLock { $0 }, [outcomes], "requests 4, 5, 6 in order")
        let one = Locked<[[Outcome]]>([])
        BatchCompletion(requests: requests, range: 9..<10) { results in one.withLock { $0.append(results) } }.complete(9, outcomes[0])
        XCTAssertEqual(one.withLock { $0 }, [[outcomes[0]]])
    }

    func testResultsArriveInRequestOrderWhateverTheOrderTheyFinishIn() {
        let outcomes: [Outcome] = (0..<5).map { .success(HTTP2Response(status: 200 + $0)) }
        let order = [3, 0, 4, 1, 2]
        XCTAssertEqual(deliveries(count: 5, order.map { ($0, outcomes[$0]) }), [outcomes])
        // Late and repeated results change nothing once delivered.
        let late: Outcome = .failure(TransportError(.timeout, "late"))
        XCTAssertEqual(deliveries(count: 3, [(2, outcomes[2]), (2, late), (0, outcomes[0]), (1, outcomes[1]), (1, late)]),
                       [[outcomes[0], outcomes[1], outcomes[2]]])
        XCTAssertEqual(deliveries(count: 3, [(2, outcomes[2]), (0, outcomes[0])]), [], "one missing: nothing yet")
    }
}
