@testable import HTTP2Client
import PushGWSync
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
        stream.appendHeader(HTTPHeader("apns-id", "a"))
        stream.appendHeader(HTTPHeader("retry-after", "5"))
        Array(#"{"reason":"Shutdown"}"#.utf8).withUnsafeBufferPointer { stream.appendBody($0, limit: 100) }
        let response = stream.takeResponse(status: 503)
        XCTAssertEqual(response, HTTP2Response(status: 503, headers: [HTTPHeader("apns-id", "a"), HTTPHeader("retry-after", "5")],
                                               body: Array(#"{"reason":"Shutdown"}"#.utf8)))
        XCTAssertNil(stream.responseFirstHeader)
        XCTAssertEqual(stream.responseLaterHeaders, [])
        XCTAssertEqual(stream.responseBody, [])
    }

    /// The body goes in the pieces nghttp2 asks for, and a recycled stream
    /// reused for another batch sends that batch's request.
    func testTheBodyGoesInPiecesAndAReusedStreamSendsItsNewRequest() {
        func batch(_ body: [UInt8]) -> BatchCompletion { BatchCompletion(requests: [HTTP2Request(path: "/", body: body)]) { _ in } }
        let stream = PendingStream(batch: batch([1, 2, 3, 4, 5]), index: 0, startedAt: .now)
        XCTAssertEqual(stream.timeout, .seconds(10))
        var buffer = [UInt8](repeating: 0, count: 3)
        var chunk = buffer.withUnsafeMutableBufferPointer { stream.nextBodyChunk(into: $0.baseAddress!, capacity: 3) }
        XCTAssertTrue(chunk == (3, false))
        XCTAssertEqual(buffer, [1, 2, 3])
        chunk = buffer.withUnsafeMutableBufferPointer { stream.nextBodyChunk(into: $0.baseAddress!, capacity: 3) }
        XCTAssertTrue(chunk == (2, true))
        XCTAssertEqual(buffer[..<2], [4, 5])
        stream.recycle()
        stream.reuse(batch: batch([9, 8]), index: 0, startedSinceOrigin: .zero)
        XCTAssertEqual(stream.unsentBodyCount, 2)
        chunk = buffer.withUnsafeMutableBufferPointer { stream.nextBodyChunk(into: $0.baseAddress!, capacity: 3) }
        XCTAssertTrue(chunk == (2, true))
        XCTAssertEqual(buffer[..<2], [9, 8])
    }

    /// The result goes to the batch once, and the batch delivers it.
    func testTheResultReachesTheBatchOnce() {
        let delivered = Locked<[[Result<HTTP2Response, TransportError>]]>([])
        let batch = BatchCompletion(requests: [HTTP2Request(path: "/")]) { results in delivered.withLock { $0.append(results) } }
        let stream = PendingStream(batch: batch, index: 0, startedAt: .now)
        stream.finish(.success(HTTP2Response(status: 200)))
        stream.finish(.success(HTTP2Response(status: 500)))
        XCTAssertEqual(delivered.withLock { $0.count }, 1)
        XCTAssertEqual(try delivered.withLock { $0[0] }[0].get().status, 200)
    }

    /// A body waits for the connection's window to take it whole only when
    /// it fits one frame, none of it is sent, and the connection's window
    /// (not the stream's, nor the frame size) is what cuts it.
    func testABodyWaitsWholeForTheWindowOnlyWhenTheConnectionWindowWouldCutIt() {
        func stream(body: Int) -> PendingStream {
            let batch = BatchCompletion(requests: [HTTP2Request(path: "/", body: Array(repeating: 7, count: body))]) { _ in }
            return PendingStream(batch: batch, index: 0, startedAt: .now)
        }
        let small = stream(body: 816)
        XCTAssertTrue(small.waitsForWindow(capacity: 500, connectionWindow: 500))
        XCTAssertFalse(small.waitsForWindow(capacity: 816, connectionWindow: 816), "it fits")
        XCTAssertFalse(small.waitsForWindow(capacity: 500, connectionWindow: 60_000), "the stream's own window cuts it: waiting for the connection's would not help")
        XCTAssertFalse(stream(body: 20_000).waitsForWindow(capacity: 16_384, connectionWindow: 10_000), "beyond one frame it goes in pieces anyway")
        XCTAssertFalse(stream(body: 0).waitsForWindow(capacity: 0, connectionWindow: 0))

        var buffer = [UInt8](repeating: 0, count: 816)
        _ = buffer.withUnsafeMutableBufferPointer { small.nextBodyChunk(into: $0.baseAddress!, capacity: 300) }
        XCTAssertFalse(small.waitsForWindow(capacity: 100, connectionWindow: 100), "once begun, the rest goes as the window allows")
    }
}

/// A response header that repeats one of the request's, name and value
/// (APNs echoes the `apns-id`), is the request's own header.
final class EchoedHeaderTests: XCTestCase {
    private let apnsID = "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c"

    private func stream() -> PendingStream {
        let request = HTTP2Request(path: "/", headers: [HTTPHeader("apns-topic", "com.example"), HTTPHeader("apns-id", apnsID)])
        return PendingStream(batch: BatchCompletion(requests: [request]) { _ in }, index: 0, startedAt: .now)
    }

    private func repeated(_ stream: PendingStream, _ name: String, _ value: String) -> HTTPHeader? {
        Array(name.utf8).withUnsafeBufferPointer { name in
            Array(value.utf8).withUnsafeBufferPointer { value in stream.requestHeader(repeatedBy: name, value) }
        }
    }

    func testAnEchoedHeaderIsTheRequestsOwn() throws {
        let stream = stream()
        let echoed = try XCTUnwrap(repeated(stream, "apns-id", apnsID))
        XCTAssertEqual(echoed, HTTPHeader("apns-id", apnsID))
        XCTAssertEqual(repeated(stream, "apns-topic", "com.example"), HTTPHeader("apns-topic", "com.example"))
    }

    func testAHeaderThatDiffersInNameOrValueIsNotTheRequests() {
        let stream = stream()
        XCTAssertNil(repeated(stream, "apns-id", String(apnsID.dropLast()) + "d"), "another value of the same length")
        XCTAssertNil(repeated(stream, "apns-id", String(apnsID.dropLast())), "a prefix of the value")
        XCTAssertNil(repeated(stream, "apns-id", apnsID.uppercased()), "bytes, not case, decide")
        XCTAssertNil(repeated(stream, "apns-ix", apnsID), "another name")
        XCTAssertNil(repeated(stream, "apns-topic", apnsID), "another header's name with this value")
        XCTAssertNil(repeated(stream, "retry-after", "5"), "a header the request does not have")
    }
}
