@testable import APNsSimulator
import XCTest

/// The strict HTTP/1.1 request reader, fed byte chunks.
final class HTTP1RequestReaderTests: XCTestCase {
    private func feed(_ text: String, into reader: inout HTTP1RequestReader) {
        Array(text.utf8).withUnsafeBytes { reader.append($0) }
    }

    func testPipelinedRequestsComeOutInOrderWithTheirBodies() {
        var reader = HTTP1RequestReader()
        feed("POST /push/a HTTP/1.1\r\nHost: h\r\nTTL: 5\r\nContent-Length: 3\r\n\r\nabcGET /x HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n",
             into: &reader)
        guard case .request(let first, let closeFirst) = reader.next() else { return XCTFail("no first request") }
        XCTAssertEqual(first.value(":method"), "POST")
        XCTAssertEqual(first.value(":path"), "/push/a")
        XCTAssertEqual(first.value("ttl"), "5")
        XCTAssertEqual(first.body, Array("abc".utf8))
        XCTAssertFalse(closeFirst)
        guard case .request(let second, let closeSecond) = reader.next() else { return XCTFail("no second request") }
        XCTAssertEqual(second.value(":method"), "GET")
        XCTAssertTrue(closeSecond)
        guard case .needsMore = reader.next() else { return XCTFail("nothing more was sent") }
    }

    func testARequestCutAnywhereWaitsForTheRest() {
        // Bytes, not Characters: "\r\n" is one Character.
        let bytes = Array("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbody".utf8)
        for cut in 1..<bytes.count {
            var reader = HTTP1RequestReader()
            bytes[..<cut].withUnsafeBytes { reader.append($0) }
            guard case .needsMore = reader.next() else { return XCTFail("cut at \(cut) is not whole") }
            bytes[cut...].withUnsafeBytes { reader.append($0) }
            guard case .request(let request, _) = reader.next() else { return XCTFail("cut at \(cut) never completed") }
            XCTAssertEqual(request.body, Array("body".utf8))
        }
    }

    func testFramingALenientServerWouldGuessIsRefused() {
        let refused: [(String, Int)] = [
            ("POST /p HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
            ("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
            ("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST /p HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n", 400),
            ("POST /p HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400),
            ("POST http://h/p HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("POST  /p HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 70000\r\n\r\n", 413),
            ("POST /p HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 17_000) + "\r\n\r\n", 431),
        ]
        for (text, status) in refused {
            var reader = HTTP1RequestReader()
            feed(text, into: &reader)
            guard case .refused(let answered, _) = reader.next() else { XCTFail("accepted: \(text.prefix(60))"); continue }
            XCTAssertEqual(answered, status, String(text.prefix(60)))
        }
    }
}
