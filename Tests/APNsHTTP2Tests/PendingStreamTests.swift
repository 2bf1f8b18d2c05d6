@testable import APNsHTTP2
import CNGHTTP2
import XCTest

/// A stream's header block says exactly what its request says (names,
/// values, order and indexing flags, whatever the request's text), and
/// its response body is the chunks received, up to the limit.
final class PendingStreamTests: XCTestCase {
    private struct Field: Equatable, CustomStringConvertible {
        var name: [UInt8]
        var value: [UInt8]
        var neverIndexed: Bool
        var description: String {
            "\(String(decoding: name, as: UTF8.self)): \(String(decoding: value, as: UTF8.self))\(neverIndexed ? " (never indexed)" : "")"
        }
    }

    private let unindexedNames = ["apns-id", "apns-expiration", "apns-collapse-id"]

    /// What the block must say: the fixed `:scheme`, then the request's own bytes.
    private func expected(_ request: HTTP2Request) -> [Field] {
        func field(_ name: String, _ value: String, _ neverIndexed: Bool) -> Field {
            Field(name: Array(name.utf8), value: Array(value.utf8), neverIndexed: neverIndexed)
        }
        var fields = [field(":method", request.method, false), field(":scheme", "https", false), field(":path", request.path, true)]
        if let token = request.authorization { fields.append(field("authorization", token, true)) }
        for header in request.headers { fields.append(field(header.name, header.value, unindexedNames.contains(header.name))) }
        return fields
    }

    private func built(_ request: HTTP2Request) -> [Field] {
        let batch = BatchCompletion(requests: [request]) { _ in }
        let stream = PendingStream(batch: batch, index: 0, startedAt: .now)
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        let scheme = Array(":schemehttps".utf8)
        return scheme.withUnsafeBufferPointer { bytes in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            var fixed = nghttp2_nv(name: base, value: base + 7, namelen: 7, valuelen: 5, flags: noCopy)
            let block = withUnsafePointer(to: &fixed) {
                stream.buildHeaderBlock(fixed: UnsafeBufferPointer(start: $0, count: 1), unindexed: unindexedNames.map { Array($0.utf8) })
            }
            return block.map { entry in
                XCTAssertEqual(entry.flags & noCopy, noCopy, "nghttp2 copies nothing")
                return Field(name: Array(UnsafeBufferPointer(start: entry.name, count: entry.namelen)),
                             value: Array(UnsafeBufferPointer(start: entry.value, count: entry.valuelen)),
                             neverIndexed: entry.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0)
            }
        }
    }

    func testTheBlockIsTheRequestByteForByte() {
        let headers = [HTTPHeader("apns-topic", "com.example.app"), HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-priority", "10"),
                       HTTPHeader("apns-expiration", "0"), HTTPHeader("apns-id", "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c"),
                       HTTPHeader("apns-collapse-id", "37791233165968:537")]
        let requests = [
            HTTP2Request(path: "/3/device/\(String(repeating: "ab", count: 32))", authorization: "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                         headers: headers),
            HTTP2Request(path: "/3/device/x", headers: headers),
            HTTP2Request(method: "PUT", path: "/", authorization: "", headers: []),
            // Non-ASCII text and canonically equivalent spellings keep their own bytes.
            HTTP2Request(path: "/caf\u{E9}", headers: [HTTPHeader("apns-topic", "com.example.\u{212A}"),
                                                       HTTPHeader("x-e", "cafe\u{301}"), HTTPHeader("apns-id", "")]),
        ]
        for request in requests {
            XCTAssertEqual(built(request), expected(request), "\(request)")
        }
    }

    func testTheResponseBodyIsTheChunksInOrderUpToTheLimit() {
        func body(_ chunks: [String], limit: Int) -> String {
            let batch = BatchCompletion(requests: [HTTP2Request(path: "/")]) { _ in }
            let stream = PendingStream(batch: batch, index: 0, startedAt: .now)
            for chunk in chunks { Array(chunk.utf8).withUnsafeBufferPointer { stream.appendBody($0, limit: limit) } }
            return String(decoding: stream.responseBody, as: UTF8.self)
        }
        XCTAssertEqual(body(["{\"reason\":", "\"Unregistered\"}"], limit: 100), "{\"reason\":\"Unregistered\"}")
        XCTAssertEqual(body(["", "abc", "", "def"], limit: 100), "abcdef")
        XCTAssertEqual(body(["abcdef"], limit: 4), "abcd")
        XCTAssertEqual(body(["ab", "cdef", "gh"], limit: 4), "abcd")
        XCTAssertEqual(body(["abcd", "ef"], limit: 4), "abcd")
        XCTAssertEqual(body(["abc"], limit: 0), "")
    }

    func testTheResponseTakesTheStreamsHeadersAndBody() {
        let batch = BatchCompletion(requests: [HTTP2Request(path: "/")]) { _ in }
        let stream = PendingStream(batch: batch, index: 0, startedAt: .now)
        stream.responseHeaders = [HTTPHeader("apns-id", "a"), HTTPHeader("retry-after", "5")]
        Array(#"{"reason":"Shutdown"}"#.utf8).withUnsafeBufferPointer { stream.appendBody($0, limit: 100) }
        let response = stream.takeResponse(status: 503)
        XCTAssertEqual(response, HTTP2Response(status: 503, headers: [HTTPHeader("apns-id", "a"), HTTPHeader("retry-after", "5")],
                                               body: Array(#"{"reason":"Shutdown"}"#.utf8)))
        XCTAssertEqual(stream.responseHeaders, [])
        XCTAssertEqual(stream.responseBody, [])
    }
}
