@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// Ambiguous framing and cut bytes are refused before any handler runs.
final class RequestScreenTests: XCTestCase {
    private func header(_ name: String, _ value: String) -> RequestScreen.Header {
        RequestScreen.Header(name: Array(name.utf8), value: Array(value.utf8))
    }

    private func code(_ headers: [RequestScreen.Header], intact: Bool = true) throws -> (Int, JSONValue?)? {
        guard let response = RequestScreen.refusal(headers: headers, targetIntact: intact) else { return nil }
        return (response.status, try JSONParser.parse(response.body)["error"]?["code"])
    }

    func testOrdinaryRequestsPass() throws {
        XCTAssertNil(try code([header("Host", "x"), header("Content-Length", "12"), header("Authorization", "Bearer t")]))
        XCTAssertNil(try code([header("Host", "x"), header("Transfer-Encoding", " Chunked ")]))
        XCTAssertNil(try code([]))
    }

    func testTwoContentLengthsAreRefusedEvenWhenEqual() throws {
        XCTAssertEqual(try code([header("Content-Length", "2"), header("content-length", "3")])?.0, 400)
        XCTAssertEqual(try code([header("Content-Length", "2"), header("Content-Length", "2")])?.1, .string("bad_request"))
    }

    func testContentLengthWithTransferEncodingIsRefused() throws {
        XCTAssertEqual(try code([header("Content-Length", "2"), header("Transfer-Encoding", "chunked")])?.0, 400)
    }

    func testOnlyChunkedIsAcceptedAsATransferCoding() throws {
        XCTAssertEqual(try code([header("Transfer-Encoding", "gzip")])?.0, 501)
        XCTAssertEqual(try code([header("Transfer-Encoding", "gzip, chunked")])?.1, .string("not_implemented"))
        XCTAssertEqual(try code([header("Transfer-Encoding", "chunked"), header("Transfer-Encoding", "chunked")])?.0, 501)
    }

    func testNULOrCRInAHeaderAndNULInTheTargetAreRefused() throws {
        XCTAssertEqual(try code([header("X-A", "b\u{0}c")])?.0, 400)
        XCTAssertEqual(try code([header("X-A", "b\rc")])?.0, 400)
        XCTAssertEqual(try code([header("X\u{0}A", "b")])?.0, 400)
        XCTAssertEqual(try code([header("Host", "x")], intact: false)?.0, 400)
    }
}
