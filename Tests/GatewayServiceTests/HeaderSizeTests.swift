import Foundation
@testable import GatewayHTTP
import GatewayService
import XCTest

/// Request headers near the per-connection memory (16 KiB). libmicrohttpd
/// builds the answer's header in that memory too: headers that just fit
/// leave it no room, and it closes the connection without a word. Before
/// the screen refused such headers, a /v1/notify was handled all the same:
/// its notifications went out and its caller, with no answer, would send
/// the event again. Now every request is answered, or
/// closed unanswered and not handled.
final class HeaderSizeTests: XCTestCase {
    /// What a sweep saw: answers, refusals, and every check on the way.
    private struct Sweep {
        var answered = 0
        var refused = 0

        /// Sends `bytes` (one /v1/notify to one device) on a new connection
        /// and checks the outcome: 200 and sent, 431 and not sent, or closed
        /// with no answer and not sent.
        mutating func send(_ bytes: [UInt8], to testbed: ServiceTestbed, _ what: String) throws {
            let before = testbed.simulator.statistics.acceptedTotal
            let connection = try RawConnection(port: testbed.server.port)
            defer { connection.close() }
            connection.send(bytes)
            let reply = connection.readReply()
            let delivered = testbed.simulator.statistics.acceptedTotal - before
            let label = "\(what): \(reply)"
            switch reply.status {
            case 200?:
                answered += 1
                XCTAssertEqual(delivered, 1, label)
            case 431?:
                refused += 1
                XCTAssertEqual(delivered, 0, label)
            case nil:
                XCTAssertEqual(reply, .closed, label)
                XCTAssertEqual(delivered, 0, "closed without an answer, so not handled: \(label)")
            default:
                XCTFail(label)
            }
        }

        func checkReachedTheLimit() {
            XCTAssertGreaterThan(answered, 0, "the sweep starts below the limit")
            XCTAssertGreaterThan(refused, 0, "and reaches it")
        }
    }

    /// Header blocks from 13 KB to past the memory, as one large header and
    /// as many small ones (each also takes room for its entry).
    func testARequestNearTheHeaderLimitIsAnsweredOrNotHandledAtAll() async throws {
        let testbed = try ServiceTestbed()
        var sweep = Sweep()
        for (step, size) in stride(from: 13_000, through: 16_800, by: 20).enumerated() {
            let pad = String(repeating: "a", count: size)
            let many = (0..<(size / 40)).map { "X-Pad-\($0): \(String(repeating: "b", count: 28))\r\n" }.joined()
            for (shape, headers) in ["X-Pad: \(pad)\r\n", many].enumerated() {
                let body = ServiceTestbed.event(id: "big-headers-\(step)-\(shape)", tokens: [ServiceTestbed.token(step % 50)])
                let request = "POST /v1/notify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ServiceTestbed.bearer)\r\n\(headers)"
                    + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                try sweep.send(Array(request.utf8) + body, to: testbed,
                               "\(request.utf8.count) bytes of headers (\(shape == 0 ? "one" : "many"))")
            }
        }
        sweep.checkReachedTheLimit()
    }

    /// A chunked body's trailers land in the same memory after the headers
    /// were screened: a large one let the notify be handled and then no
    /// answer be written. Every size is answered, or
    /// closed with nothing sent.
    func testTrailersNearTheLimitAreAnsweredOrNotHandledAtAll() async throws {
        let testbed = try ServiceTestbed()
        var sweep = Sweep()
        for (step, size) in stride(from: 14_000, through: 16_400, by: 24).enumerated() {
            let body = ServiceTestbed.event(id: "big-trailer-\(step)", tokens: [ServiceTestbed.token(step % 50)])
            let head = "POST /v1/notify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ServiceTestbed.bearer)\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(String(body.count, radix: 16))\r\n"
            let tail = "\r\n0\r\nX-Trail: \(String(repeating: "t", count: size))\r\n\r\n"
            try sweep.send(Array(head.utf8) + body + Array(tail.utf8), to: testbed, "a trailer of \(size) bytes")
        }
        sweep.checkReachedTheLimit()
    }
}
