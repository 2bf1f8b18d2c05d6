import Foundation
import GatewayService
@testable import GatewayHTTP
import PushGWSync
import XCTest
import TestSupport

/// Stopping the server while handlers are answering: every suspended
/// connection is resumed exactly once before libmicrohttpd stops (it aborts
/// the process when stopped with a connection still suspended), and each
/// client gets its handler's answer or 503 `shutting_down`, and each 503
/// is reported to the handler so the request counter sees it.
///
/// The race this guards (an answer stored, its resume not yet run, when
/// the stop took the waiting requests) is a window of a few instructions:
/// this test does not reliably hit it on the old code, it checks that the
/// stop path loses no answer while answers race it.
final class HTTPServerStopTests: XCTestCase {
    /// Keeps every reply, to be answered by the test.
    final class HeldReplies: HTTPHandler {
        let replies = Locked<[HTTPReply]>([])
        /// Statuses the server reported delivering for the handler.
        let answeredByServer = Locked<[Int]>([])

        func answered(path: String, _ response: HTTPResponse) {
            XCTAssertEqual(path, "/held")
            answeredByServer.withLock { $0.append(response.status) }
        }

        func respondLater(_ request: HTTPRequest, reply: HTTPReply) -> Bool {
            replies.withLock { $0.append(reply) }
            return true
        }

        func handle(_ request: HTTPRequest) async -> HTTPResponse {
            HTTPResponse(status: 500, body: [])
        }
    }

    /// A started server whose handler holds `count` requests, one per connection.
    private func serverHolding(_ count: Int) async throws -> (HTTPServer, HeldReplies, [RawConnection]) {
        let handler = HeldReplies()
        let server = HTTPServer(address: "127.0.0.1", port: 0, handler: handler)
        try server.start()
        let connections = try (0..<count).map { _ in try RawConnection(port: server.port) }
        for connection in connections {
            XCTAssertTrue(connection.send("GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        }
        try await waitUntil("every request held") { handler.replies.withLock { $0.count } == count }
        return (server, handler, connections)
    }

    func testStoppingWhileHandlersAnswerResumesEveryConnection() async throws {
        for round in 0..<5 {
            let (server, handler, connections) = try await serverHolding(48)
            let replies = handler.replies.withLock { $0 }
            // The handlers answer while the server stops: some answers land
            // before the stop takes the waiting requests, some after.
            // Counted as GatewayHandler counts: only an answer that was used.
            let delivered = Locked(0)
            let answered = DispatchSemaphore(value: 0)
            let answering = Thread {
                for reply in replies where reply.send(HTTPResponse(status: 200, body: Array("{}".utf8))) {
                    delivered.withLock { $0 += 1 }
                }
                answered.signal()
            }
            answering.start()
            server.stop()
            var statuses: [Int: Int] = [:]
            for connection in connections {
                let reply = connection.readReply(timeout: .seconds(3))
                XCTAssertTrue(reply.status == 200 || reply.status == 503, "round \(round): \(reply)")
                statuses[reply.status ?? 0, default: 0] += 1
            }
            answered.wait()
            XCTAssertEqual(handler.answeredByServer.withLock { $0 }, Array(repeating: 503, count: statuses[503] ?? 0),
                           "each 503 of the stop is reported for the request counter")
            XCTAssertEqual(delivered.withLock { $0 }, statuses[200] ?? 0, "an answer counts as used only when the client got it")
        }
    }

    func testRequestsStillWaitingAtTheStopGet503AndAreReported() async throws {
        let (server, handler, connections) = try await serverHolding(3)
        server.stop()
        for connection in connections {
            let reply = connection.readReply(timeout: .seconds(3))
            XCTAssertEqual(reply.status, 503, "\(reply)")
            guard case let .response(_, _, body) = reply else { continue }
            XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("shutting_down"))
        }
        XCTAssertEqual(handler.answeredByServer.withLock { $0 }, [503, 503, 503])
        // A late answer from the handler is not used: it resumes nothing and is not to be counted.
        for reply in handler.replies.withLock({ $0 }) {
            XCTAssertFalse(reply.send(HTTPResponse(status: 200, body: [])))
        }
        XCTAssertEqual(handler.answeredByServer.withLock { $0 }, [503, 503, 503])
    }
}
