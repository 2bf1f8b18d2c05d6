import Foundation
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// What HTTP itself asks of the ingest beyond API.md: the headers RFC 9110 requires on 401 and 405, HEAD
/// where GET is served, refusing before an upload the client waits to
/// send, and refusing what the gateway cannot read unambiguously.
final class HTTPSemanticsTests: XCTestCase {
    private let host = "Host: 127.0.0.1\r\n"

    func testA401NamesTheSchemeAndA405NamesTheMethods() async throws {
        let testbed = try ServiceTestbed()
        let connection = try RawConnection(port: testbed.server.port)
        XCTAssertTrue(connection.send("POST /v1/notify HTTP/1.1\r\n\(host)Content-Length: 2\r\n\r\n{}"))
        guard case let .response(401, headers, _) = connection.readReply() else { return XCTFail("no 401") }
        XCTAssertEqual(headers["www-authenticate"], #"Bearer realm="pushgw""#)

        XCTAssertTrue(connection.send("GET /v1/notify HTTP/1.1\r\n\(host)\r\n"))
        guard case let .response(405, notifyHeaders, _) = connection.readReply() else { return XCTFail("no 405") }
        XCTAssertEqual(notifyHeaders["allow"], "POST")

        XCTAssertTrue(connection.send("POST /healthz HTTP/1.1\r\n\(host)Content-Length: 0\r\n\r\n"))
        guard case let .response(405, healthHeaders, _) = connection.readReply() else { return XCTFail("no 405") }
        XCTAssertEqual(healthHeaders["allow"], "GET, HEAD")
    }

    func testHeadIsServedWhereGetIsWithoutABody() async throws {
        let testbed = try ServiceTestbed()
        for path in ["/healthz", "/readyz", "/metrics"] {
            let connection = try RawConnection(port: testbed.server.port)
            XCTAssertTrue(connection.send("HEAD \(path) HTTP/1.1\r\n\(host)Connection: close\r\n\r\n"))
            // No body follows the head, whatever Content-Length says: read the head alone.
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                let count = recv(connection.descriptor, &chunk, chunk.count, 0)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), "\(path): \(text.prefix(80))")
            XCTAssertTrue(text.hasSuffix("\r\n\r\n"), "\(path): nothing after the head")
        }
    }

    /// `Expect: 100-continue`: a client without a valid token, or with the
    /// wrong method, gets its answer without uploading the body.
    func testAClientWaitingForContinueIsRefusedBeforeItsUpload() async throws {
        let testbed = try ServiceTestbed()
        let cases: [(head: String, status: Int)] = [
            ("POST /v1/notify HTTP/1.1\r\n\(host)Expect: 100-continue\r\nContent-Length: 60000\r\n\r\n", 401),
            ("POST /v1/render HTTP/1.1\r\n\(host)Authorization: Bearer wrong-token-wrong-token\r\nExpect: 100-continue\r\nContent-Length: 60000\r\n\r\n", 401),
            ("PUT /v1/notify HTTP/1.1\r\n\(host)Authorization: Bearer \(ServiceTestbed.bearer)\r\nExpect: 100-continue\r\nContent-Length: 60000\r\n\r\n", 405),
        ]
        for (head, status) in cases {
            let connection = try RawConnection(port: testbed.server.port)
            XCTAssertTrue(connection.send(head))
            let reply = connection.readReply(timeout: .seconds(3))
            XCTAssertEqual(reply.status, status, "\(head.prefix(30)) → \(reply) (a 100 Continue would leave no final answer here)")
        }
        // A valid client still gets its 100 Continue and its answer.
        let event = ServiceTestbed.event(id: "continue:1", tokens: [ServiceTestbed.token(3)])
        let connection = try RawConnection(port: testbed.server.port)
        XCTAssertTrue(connection.send("POST /v1/notify HTTP/1.1\r\n\(host)Authorization: Bearer \(ServiceTestbed.bearer)\r\n" +
                                      "Expect: 100-continue\r\nContent-Length: \(event.count)\r\n\r\n"))
        XCTAssertEqual(connection.readReply().status, 100)
        XCTAssertTrue(connection.send(event))
        XCTAssertEqual(connection.readReply().status, 200)
    }

    func testTwoAuthorizationHeadersAreRefusedWhateverTheirOrder() async throws {
        let testbed = try ServiceTestbed()
        for order in [["wrong-token-wrong-token", ServiceTestbed.bearer], [ServiceTestbed.bearer, "wrong-token-wrong-token"]] {
            let connection = try RawConnection(port: testbed.server.port)
            let auth = order.map { "Authorization: Bearer \($0)\r\n" }.joined()
            XCTAssertTrue(connection.send("POST /v1/render HTTP/1.1\r\n\(host)\(auth)Content-Length: 2\r\n\r\n{}"))
            guard case let .response(400, _, body) = connection.readReply() else { return XCTFail("not refused: \(order)") }
            XCTAssertEqual(try JSONParser.parse(body)["error"]?["code"], .string("bad_request"))
        }
    }

    func testAnEncodedBodyIsRefusedAsUnsupportedRatherThanMisreadAsJSON() async throws {
        let testbed = try ServiceTestbed()
        let connection = try RawConnection(port: testbed.server.port)
        XCTAssertTrue(connection.send("POST /v1/render HTTP/1.1\r\n\(host)Authorization: Bearer \(ServiceTestbed.bearer)\r\n" +
                                      "Content-Encoding: gzip\r\nContent-Length: 4\r\n\r\n\u{1f}\u{8b}\u{8}\u{0}"))
        guard case let .response(415, headers, body) = connection.readReply() else { return XCTFail("not 415") }
        XCTAssertEqual(try JSONParser.parse(body)["error"]?["code"], .string("unsupported_media_type"))
        XCTAssertEqual(headers["accept-encoding"], "identity")
        // Without a body there is nothing to decode: a proxy's header on a health check passes.
        for coding in ["identity", "gzip", ""] {
            let bodiless = try RawConnection(port: testbed.server.port)
            XCTAssertTrue(bodiless.send("GET /healthz HTTP/1.1\r\n\(host)Content-Encoding: \(coding)\r\n\r\n"))
            XCTAssertEqual(bodiless.readReply().status, 200, coding)
        }
    }
}
