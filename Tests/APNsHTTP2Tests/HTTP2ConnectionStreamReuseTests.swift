@testable import APNsHTTP2
@testable import HTTP2Client
import Foundation
import PayloadBuilder
import XCTest
import TestSupport

/// Requests sent on a connection after earlier ones were answered,
/// rejected or reset each get their own answer (status, headers, body),
/// nothing of an earlier request's: the connection reuses the streams
/// that closed, so this is what a caller sees of that reuse.
final class HTTP2ConnectionStreamReuseTests: XCTestCase {
    func testReusedStreamsAfterResetAndRejectedStreamsAnswerOnlyTheirOwnRequest() async throws {
        let testbed = try APNsTestbed()
        let port = try XCTUnwrap(URLComponents(string: testbed.simulator.url)?.port)
        let connection = try HTTP2Connection(host: "127.0.0.1", port: port, tls: TLSConfiguration(caFile: testbed.caFile))
        defer { connection.shutdown() }
        let authorization = "bearer \(try testbed.tokens.token(now: testbed.clock.epochSeconds))"
        let rendered = try testbed.requests(count: 60)
        func request(_ index: Int) -> HTTP2Request {
            HTTP2Request(path: rendered[index].path, authorization: authorization, headers: rendered[index].headers, body: Array(rendered[index].body))
        }
        // The simulator takes one stream at a time until it has seen the token.
        let first = try await connection.send(request(0))
        XCTAssertEqual(first.status, 200)
        for round in 0..<4 {
            // Every third request is reset by the simulator (more header
            // fields than it takes), every fifth is rejected (a bad token).
            var requests: [HTTP2Request] = []
            for index in 0..<rendered.count {
                var sent = request(index)
                if index % 3 == round % 3 {
                    sent.headers += (0..<300).map { HTTPHeader("x-filler-\($0)", "v") }
                } else if index % 5 == round % 5 {
                    sent.path = "/3/device/not-a-token"
                }
                requests.append(sent)
            }
            let results = await connection.send(requests)
            XCTAssertEqual(results.count, requests.count)
            for (index, result) in results.enumerated() {
                let apnsID = rendered[index].header("apns-id")
                if index % 3 == round % 3 {
                    XCTAssertEqual(result.failure?.kind, .connectionLost, "round \(round), request \(index): \(result)")
                    continue
                }
                let response = try XCTUnwrap(try? result.get(), "round \(round), request \(index): \(result)")
                XCTAssertEqual(response.header("apns-id"), apnsID, "round \(round), request \(index)")
                if index % 5 == round % 5 {
                    XCTAssertEqual(response.status, 400, "round \(round), request \(index)")
                    XCTAssert(String(decoding: response.body, as: UTF8.self).contains("BadDeviceToken"), "round \(round), request \(index)")
                } else {
                    XCTAssertEqual(response.status, 200, "round \(round), request \(index)")
                    XCTAssertEqual(response.body, [], "round \(round), request \(index)")
                    XCTAssertEqual(response.headers.filter { $0.name == "apns-id" }.count, 1, "round \(round), request \(index)")
                }
            }
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
