import GatewayService
@testable import GatewayHTTP
import Synchronization
import XCTest
import PushGWSync

/// libmicrohttpd's own messages reach the server's log hook (and so the
/// gateway's JSON log), not standard error.
final class ServerLogTests: XCTestCase {
    struct Answer200: HTTPHandler {
        func handle(_ request: HTTPRequest) async -> HTTPResponse {
            HTTPResponse(status: 200, body: Array("{}".utf8))
        }
    }

    func testLibmicrohttpdMessagesGoThroughTheLogHook() throws {
        let lines = Locked<[String]>([])
        let server = HTTPServer(address: "127.0.0.1", port: 0, handler: Answer200(), log: { line in
            lines.withLock { $0.append(line) }
        })
        try server.start()
        defer { server.stop() }
        XCTAssertTrue(lines.withLock { $0.isEmpty }, "nothing to say at start: \(lines.withLock { $0 })")
        // A header line without a colon makes libmicrohttpd refuse the request and say so.
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send(Array("GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n".utf8)))
        _ = connection.readReply(timeout: .seconds(3))
        connection.close()
        let deadline = ContinuousClock.now + .seconds(3)
        while lines.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { usleep(10_000) }
        let captured = lines.withLock { $0 }
        XCTAssertTrue(captured.contains { $0.contains("Error processing request") }, "libmicrohttpd's message reached the hook: \(captured)")
        XCTAssertTrue(captured.allSatisfy { !$0.isEmpty && !$0.hasSuffix("\n") }, "\(captured)")
    }
}
