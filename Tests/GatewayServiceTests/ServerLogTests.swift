@testable import GatewayService
@testable import GatewayHTTP
import Synchronization
import XCTest
import PushGWSync
import TestSupport

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
        try blockUntil("libmicrohttpd's message reaches the hook") {
            lines.withLock { $0.contains { $0.contains("Error processing request") } }
        }
        let captured = lines.withLock { $0 }
        XCTAssertTrue(captured.allSatisfy { !$0.isEmpty && !$0.hasSuffix("\n") }, "\(captured)")
    }

    /// An answer libmicrohttpd could not write (headers that filled the
    /// connection's memory) is logged as a warning, with the message's own
    /// words; a refused malformed request stays debug detail.
    func testAnAnswerThatCouldNotBeWrittenIsAWarning() throws {
        let lines = Locked<[String]>([])
        let server = HTTPServer(address: "127.0.0.1", port: 0, handler: Answer200(), log: { line in
            lines.withLock { $0.append(line) }
        })
        try server.start()
        defer { server.stop() }
        for size in stride(from: 15_600, through: 16_200, by: 10) {
            let connection = try RawConnection(port: server.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: size))\r\n\r\n")
            _ = connection.readReply(timeout: .seconds(3))
            connection.close()
        }
        func unwritten() -> [String] { lines.withLock { $0 }.filter { ServerMessageLevel.level(of: $0) == .warning } }
        try blockUntil("the unwritten answer is logged as a warning: \(lines.withLock { $0 })") {
            unwritten().contains { $0.contains("failed to create response header") }
        }
        XCTAssertEqual(ServerMessageLevel.level(of: "Error processing request (HTTP response code is 400 (`Bad Request')). Closing connection."), .debug)
        XCTAssertEqual(ServerMessageLevel.level(of: "Hit process or system resource limit at 1021 connections, temporarily suspending accept(). Consider setting a lower MHD_OPTION_CONNECTION_LIMIT."), .warning)
    }
}
