import APNsSimulator
import Foundation
import XCTest
import TestSupport

/// The web push simulator serving HTTP/1.1 instead of HTTP/2
/// (`servesHTTP11`), for a sender's HTTP/1.1 fallback: the same checks and
/// answers, on a persistent connection, with strict request framing.
final class WebPushHTTP11Tests: XCTestCase {
    private func http11Fixture() throws -> WebPushTestFixture {
        try WebPushTestFixture { $0.servesHTTP11 = true }
    }

    /// `request` written as HTTP/1.1 bytes (Host and Content-Length added).
    private func bytes(of request: SimTestRequest, port: Int, extraHead: String = "") -> [UInt8] {
        var head = "\(request.method) \(request.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(request.body.count)\r\n\(extraHead)\r\n"
        return Array(head.utf8) + request.body
    }

    /// One response read off `client`: status, headers (lowercase names), body.
    private func readResponse(_ client: SimTestClient) -> SimTestResponse {
        let raw = client.readRaw(until: { Self.parse($0) != nil })
        return Self.parse(raw) ?? SimTestResponse(closed: client.isClosed)
    }

    private static func parse(_ raw: [UInt8]) -> SimTestResponse? {
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        var response = SimTestResponse()
        response.status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            response.headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = Int(response.header("content-length") ?? "0") ?? 0
        let body = Array(text[split.upperBound...].utf8)
        guard body.count >= length else { return nil }
        response.body = Array(body.prefix(length))
        return response
    }

    func testMessagesOverOneHTTP11ConnectionAreDecryptedAndAnswered201() throws {
        let fixture = try http11Fixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["first", "second"]))
        let authorization = try XCTUnwrap(reference.py_vapid_authorization)
        let client = try SimTestClient(port: fixture.simulator.port, caPEM: fixture.simulator.caPEM, host: "127.0.0.1",
                                       alpn: ["http/1.1"])
        XCTAssertEqual(client.negotiatedProtocol, "http/1.1")
        for body in reference.bodyBytes {
            let request = fixture.request(subscription, body: body, authorization: authorization, headers: ["urgency": "low"])
            XCTAssertTrue(client.writeRaw(bytes(of: request, port: fixture.simulator.port)))
            let response = readResponse(client)
            XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
            XCTAssertTrue(response.header("location")?.hasPrefix(fixture.simulator.url + "/message/") == true)
            XCTAssertEqual(response.header("ttl"), "60")
        }
        let refused = fixture.request(subscription, body: reference.bodyBytes[0], authorization: nil)
        XCTAssertTrue(client.writeRaw(bytes(of: refused, port: fixture.simulator.port)))
        let missing = readResponse(client)
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.reason, "MissingAuthorization")

        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.text), ["first", "second"])
        XCTAssertEqual(Set(fixture.simulator.messages(for: subscription.id).map(\.connectionNumber)).count, 1, "one persistent connection")
    }

    func testAnHTTP11SimulatorRefusesAClientOfferingOnlyH2InTheHandshake() throws {
        let fixture = try http11Fixture()
        XCTAssertThrowsError(try SimTestClient(port: fixture.simulator.port, caPEM: fixture.simulator.caPEM, alpn: ["h2"]))
    }

    func testMalformedHTTP11RequestsAreRefusedAndTheConnectionClosed() throws {
        let fixture = try http11Fixture()
        let port = fixture.simulator.port
        let cases: [(String, Int)] = [
            ("POST /push/x HTTP/1.1\nHost: 127.0.0.1\n\n", 400),
            ("POST /push/x HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400),
            ("POST /push/x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
            ("POST /push/x HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n", 505),
            ("POST /push/x HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n", 400),
        ]
        for (text, status) in cases {
            let client = try SimTestClient(port: port, caPEM: fixture.simulator.caPEM, alpn: ["http/1.1"])
            XCTAssertTrue(client.writeRaw(Array(text.utf8)))
            let response = readResponse(client)
            XCTAssertEqual(response.status, status, text)
            XCTAssertEqual(response.header("connection"), "close", text)
            XCTAssertTrue(client.waitForClose(), text)
        }
    }
}
