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
        XCTAssertNil(try code([header("Host", "x"), header("Transfer-Encoding", "Chunked")]))
        XCTAssertNil(try code([]))
    }

    /// libmicrohttpd keeps a value's trailing whitespace (RFC 9110 §5.5
    /// drops it), so it would read these framings otherwise than a proxy.
    func testAFramingValueWithTrailingWhitespaceIsRefused() throws {
        for (name, value) in [("Transfer-Encoding", "chunked "), ("Transfer-Encoding", "chunked\t"),
                              ("Content-Length", "2 "), ("content-length", "2\t")] {
            XCTAssertEqual(try code([header(name, value)])?.1, .string("bad_request"), "\(name): \(value.debugDescription)")
        }
    }

    /// A bearer token followed by whitespace is that token.
    func testTheAuthorizationValueIsReadWithoutTrailingWhitespace() {
        XCTAssertEqual(RequestScreen.screened([header("Authorization", "Bearer t \t")]).authorization, "Bearer t")
    }

    /// RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
    func testTransferEncodingOnHTTP10IsRefused() throws {
        let chunked = RequestScreen.screened([header("Transfer-Encoding", "chunked")])
        XCTAssertNil(chunked.refusal(targetIntact: true))
        XCTAssertEqual(chunked.refusal(targetIntact: true, http10: true)?.status, 400)
        XCTAssertNil(RequestScreen.screened([header("Content-Length", "2")]).refusal(targetIntact: true, http10: true))
    }

    /// What libmicrohttpd cannot read as a Content-Length: 400, or 413 beyond 64 bits.
    func testContentLengthsLibmicrohttpdCannotReadAreRefused() throws {
        func refusal(_ value: String) -> Int? {
            Array(value.utf8).withUnsafeBytes { RequestScreen.contentLengthRefusal($0)?.status }
        }
        for value in ["", "-1", "+5", "1x", "0x10", "2, 2", "2,2", "1 2", "2 ", "2\t", "1e3"] {
            XCTAssertEqual(refusal(value), 400, value.debugDescription)
        }
        for value in ["18446744073709551616", "99999999999999999999999"] { XCTAssertEqual(refusal(value), 413, value) }
        for value in ["0", "007", "65536", "18446744073709551615"] { XCTAssertNil(refusal(value), value) }
        XCTAssertEqual(try code([header("Content-Length", "1x")])?.0, 400)
    }

    /// A line that is not where a CRLF-ended line would be is refused.
    func testAMisplacedLineIsRefused() throws {
        var screening = RequestScreen.screened([header("Host", "x")])
        XCTAssertNil(screening.refusal(targetIntact: true))
        screening.noteMisplacedLine()
        XCTAssertEqual(screening.refusal(targetIntact: true)?.status, 400)
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

    /// A header name must be a token: `Content-Length : 5` (libmicrohttpd
    /// keeps the space in the name, reads the body as the next request) and
    /// an empty name are refused.
    func testAHeaderNameThatIsNotATokenIsRefused() throws {
        for name in ["Content-Length ", "Transfer-Encoding\t", "", " Host", "X A", "X:A", "X\u{0}A", "X\rA", "Ü", "X(A)"] {
            XCTAssertEqual(try code([header(name, "5")])?.1, .string("bad_request"), "\(Array(name.utf8))")
        }
        XCTAssertNil(try code([header("X-Odd_!#$%&'*+.^`|~9z", "v")]))
    }

    /// The token check agrees with RFC 9110's list for every byte value.
    func testTheTokenCheckAgreesWithTheRFCForEveryByte() {
        let symbols = Array("!#$%&'*+-.^_`|~".utf8)
        for byte in UInt8.min...UInt8.max {
            let expected = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || symbols.contains(byte)
            XCTAssertEqual([byte].withUnsafeBytes { RequestScreen.isToken($0) }, expected, "byte \(byte)")
            XCTAssertEqual([UInt8(ascii: "a"), byte, UInt8(ascii: "b")].withUnsafeBytes { RequestScreen.isToken($0) }, expected)
        }
    }

    /// Headers that leave no room for the answer in the connection's memory
    /// are refused 431 (each header counts its bytes and its entry).
    func testHeadersBeyondTheRoomAreRefused() throws {
        let headers = [header("Host", "x"), header("X-Pad", String(repeating: "a", count: 1000))]
        let taken = 4 + 1 + 5 + 1000 + 2 * RequestScreen.headerEntryBytes
        XCTAssertNil(RequestScreen.screened(headers).refusal(targetIntact: true, headerRoom: taken))
        let refused = try XCTUnwrap(RequestScreen.screened(headers).refusal(targetIntact: true, headerRoom: taken - 1))
        XCTAssertEqual(refused.status, 431)
        XCTAssertEqual(try JSONParser.parse(refused.body)["error"]?["code"], .string("header_fields_too_large"))
    }

    /// The vector and word check agrees with a byte-by-byte one for a NUL, a
    /// CR or a near miss (0x01, 0x0C, 0x0E, 0x80, 0x8D) at every position of
    /// lengths 0 to 70 (overlapping reads at every length), and for every
    /// byte value alone, in a word and in a vector.
    func testTheNULOrCRCheckAgreesWithAByteByByteScan() {
        func naive(_ bytes: [UInt8]) -> Bool { bytes.contains { $0 == 0 || $0 == 13 } }
        func fast(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { RequestScreen.holdsNULOrCR($0) } }
        for length in 0...70 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            XCTAssertFalse(fast(plain))
            for position in 0..<length {
                for probe: UInt8 in [0, 13, 1, 12, 14, 0x80, 0x8D, 0xFF] {
                    var bytes = plain
                    bytes[position] = probe
                    XCTAssertEqual(fast(bytes), naive(bytes), "byte \(probe) at \(position) of \(length)")
                }
            }
        }
        for value in UInt8.min...UInt8.max {
            for count in [1, 4, 9, 17] {
                let bytes = [UInt8](repeating: value, count: count)
                XCTAssertEqual(fast(bytes), naive(bytes), "\(count) bytes of \(value)")
            }
        }
    }

    /// An `Expect` header under any case is noted (the access handler asks
    /// the routes before the body then); no other name of six bytes is.
    func testAnExpectHeaderIsNoted() {
        XCTAssertTrue(RequestScreen.screened([header("Host", "x"), header("Expect", "100-continue")]).expects)
        XCTAssertTrue(RequestScreen.screened([header("eXPECT", "")]).expects)
        XCTAssertFalse(RequestScreen.screened([header("Host", "x"), header("Expert", "100-continue")]).expects)
        XCTAssertFalse(RequestScreen.screened([]).expects)
    }

    /// The first `Authorization` header's value is kept, as sent, for the
    /// routes (a second one gets the request refused).
    func testTheAuthorizationValueIsKept() {
        XCTAssertEqual(RequestScreen.screened([header("Host", "x"), header("authorization", "Bearer t0k")]).authorization, "Bearer t0k")
        let twice = RequestScreen.screened([header("Authorization", "Bearer a"), header("AUTHORIZATION", "Bearer b")])
        XCTAssertEqual(twice.authorization, "Bearer a")
        XCTAssertNotNil(twice.refusal(targetIntact: true))
        XCTAssertEqual(RequestScreen.screened([header("Authorization", "")]).authorization, "")
        XCTAssertNil(RequestScreen.screened([header("Host", "x")]).authorization)
    }

    func testAnHTTP11RequestNeedsExactlyOneHost() throws {
        XCTAssertNil(RequestScreen.refusal(headers: [header("Host", "x")], targetIntact: true, hostRequired: true))
        XCTAssertEqual(RequestScreen.refusal(headers: [header("Accept", "*/*")], targetIntact: true, hostRequired: true)?.status, 400)
        XCTAssertNil(RequestScreen.refusal(headers: [header("Accept", "*/*")], targetIntact: true, hostRequired: false), "HTTP/1.0")
        XCTAssertEqual(try code([header("Host", "a"), header("host", "a")])?.1, .string("bad_request"))
    }

    /// The announced length the handler compares with the body limit: a
    /// number too large for `Int` is beyond it, not unknown.
    func testTheAnnouncedLengthSaturatesInsteadOfBeingLost() {
        func announced(_ value: String) -> Int? { RequestScreen.screened([header("Content-Length", value)]).announcedLength }
        XCTAssertEqual(announced("65537"), 65537)
        XCTAssertEqual(announced(" 0 "), 0)
        XCTAssertEqual(announced("0000000000000000000000000012"), 12, "leading zeros are not an overflow")
        XCTAssertEqual(announced("9223372036854775807"), Int.max)
        XCTAssertEqual(announced("9223372036854775808"), Int.max)
        XCTAssertEqual(announced("18446744073709551615"), Int.max)
        XCTAssertEqual(announced("99999999999999999999999999"), Int.max)
        XCTAssertNil(announced("-1"))
        XCTAssertNil(announced("12a"))
        XCTAssertNil(announced(""))
        XCTAssertNil(RequestScreen.screened([header("Host", "x")]).announcedLength)
    }
}

/// The router's path of a request target, in origin and absolute form.
final class RequestTargetTests: XCTestCase {
    private func path(_ target: String) -> String {
        Array(target.utf8).withUnsafeBufferPointer { RequestTarget.path($0) }
    }

    func testTheQueryIsCutOff() {
        XCTAssertEqual(path("/healthz?probe=1"), "/healthz")
        XCTAssertEqual(path("/v1/render"), "/v1/render")
        XCTAssertEqual(path("/"), "/")
        XCTAssertEqual(path("*"), "*")
    }

    func testAnAbsoluteTargetLosesItsSchemeAndAuthority() {
        XCTAssertEqual(path("http://127.0.0.1:8080/healthz"), "/healthz")
        XCTAssertEqual(path("HTTPS://gateway.example/v1/notify?x=1"), "/v1/notify")
        XCTAssertEqual(path("http://127.0.0.1:8080"), "/")
        XCTAssertEqual(path("http://127.0.0.1:8080?x=/healthz"), "/")
        XCTAssertEqual(path("ftp://host/healthz"), "ftp://host/healthz", "not an HTTP target: left for the router to refuse")
        XCTAssertEqual(path("http:/healthz"), "http:/healthz")
    }

    /// Short paths are copied into a small string, longer ones decoded:
    /// both give the bytes as `String(decoding:)` gives them, invalid
    /// UTF-8 repaired alike, at every length around the small-string limit.
    func testPathsOfEveryLengthReadAsDecodedBytes() {
        for length in 1...20 {
            for tail: [UInt8] in [[], [0xC3, 0xA9], [0xFF], [0xE2, 0x82]] {
                let bytes = [UInt8(ascii: "/")] + [UInt8](repeating: UInt8(ascii: "a"), count: length - 1) + tail
                let read = bytes.withUnsafeBufferPointer { RequestTarget.path($0) }
                XCTAssertTrue(read.utf8.elementsEqual(String(decoding: bytes, as: UTF8.self).utf8), "\(bytes)")
                let queried = (bytes + Array("?q=1".utf8)).withUnsafeBufferPointer { RequestTarget.path($0) }
                XCTAssertTrue(queried.utf8.elementsEqual(read.utf8), "\(bytes) with a query")
            }
        }
    }
}
