import Foundation
import GatewayService
import PushGWSync
import XCTest

/// Stopping the server while handlers are answering: every suspended
/// connection is resumed exactly once before libmicrohttpd stops (it aborts
/// the process when stopped with a connection still suspended), and each
/// client gets its handler's answer or 503 `shutting_down`.
///
/// The race this guards (an answer stored, its resume not yet run, when
/// the stop took the waiting requests) is a window of a few instructions:
/// this test does not reliably hit it on the old code, it checks that the
/// stop path loses no answer while answers race it.
final class HTTPServerStopTests: XCTestCase {
    /// Keeps every reply, to be answered by the test.
    final class HeldReplies: HTTPHandler {
        let replies = Locked<[HTTPReply]>([])

        func respondLater(_ request: HTTPRequest, reply: HTTPReply) -> Bool {
            replies.withLock { $0.append(reply) }
            return true
        }

        func handle(_ request: HTTPRequest) async -> HTTPResponse {
            HTTPResponse(status: 500, body: [])
        }
    }

    func testStoppingWhileHandlersAnswerResumesEveryConnection() async throws {
        for round in 0..<5 {
            let handler = HeldReplies()
            let server = HTTPServer(address: "127.0.0.1", port: 0, handler: handler)
            try server.start()
            let connections = try (0..<48).map { _ in try RawConnection(port: server.port) }
            for connection in connections {
                XCTAssertTrue(connection.send("GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            }
            try await waitUntil("every request held") { handler.replies.withLock { $0.count } == connections.count }
            let replies = handler.replies.withLock { $0 }
            // The handlers answer while the server stops: some answers land
            // before the stop takes the waiting requests, some after.
            let answering = Thread {
                for reply in replies { reply.send(HTTPResponse(status: 200, body: Array("{}".utf8))) }
            }
            answering.start()
            server.stop()
            for connection in connections {
                let reply = connection.readReply(timeout: .seconds(3))
                XCTAssertTrue(reply.status == 200 || reply.status == 503, "round \(round): \(reply)")
            }
        }
    }
}
