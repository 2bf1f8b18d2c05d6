import GatewayService
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
        // A request line without a version makes libmicrohttpd complain.
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send(Array("GARBAGE\r\n\r\n".utf8)))
        _ = connection.readReply(timeout: .seconds(3))
        connection.close()
        let deadline = ContinuousClock.now + .seconds(3)
        while lines.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { usleep(10_000) }
        let captured = lines.withLock { $0 }
        XCTAssertFalse(captured.isEmpty, "libmicrohttpd reported nothing through the hook")
        XCTAssertTrue(captured.allSatisfy { !$0.isEmpty && !$0.hasSuffix("\n") }, "\(captured)")
    }
}
