@testable import APNsHTTP2
import XCTest

/// A stream's response body is the chunks received, up to the limit, and
/// its response takes the stream's headers and body.
final class PendingStreamTests: XCTestCase {
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
