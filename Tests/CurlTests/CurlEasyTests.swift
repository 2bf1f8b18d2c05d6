import Curl
import Dispatch
import Glibc
import XCTest

/// The shared libcurl wrapper, against a one-answer HTTP server on loopback:
/// failures name the call and say what went wrong as a `Kind`, the request's
/// body rule and address rule are obeyed, and timeouts never become "no
/// timeout".
final class CurlEasyTests: XCTestCase {
    func testAnOptionThatLibcurlRefusesNamesTheOption() {
        XCTAssertThrowsError(try CurlEasy(options: CurlOptions(schemes: ["gopher-but-not-really"], maximumBodyBytes: 1))) { error in
            let failure = error as? CurlFailure
            XCTAssertEqual(failure?.call, "curl_easy_setopt(CURLOPT_PROTOCOLS_STR)")
            XCTAssertEqual(failure?.kind, .setup)
            XCTAssertEqual(failure?.beforeSending, true)
        }
    }

    func testATransferToAClosedPortFailsBeforeSending() throws {
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 1024))
        XCTAssertThrowsError(try easy.perform(request("http://127.0.0.1:\(try closedPort())/"))) { error in
            let failure = error as? CurlFailure
            XCTAssertEqual(failure?.call, "curl_easy_perform")
            XCTAssertEqual(failure?.kind, .couldNotConnect)
            XCTAssertEqual(failure?.beforeSending, true)
            XCTAssertEqual(failure?.status, 0)
            XCTAssertFalse(failure?.message.isEmpty ?? true)
        }
    }

    func testARefusedAddressGetsNoSocketAndSaysSo() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        var seen: [[UInt8]] = []
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 1024))
        XCTAssertThrowsError(try easy.perform(request(server.url, admitsAddress: { seen.append($0); return false }))) { error in
            XCTAssertEqual((error as? CurlFailure)?.kind, .addressRefused)
            XCTAssertEqual((error as? CurlFailure)?.beforeSending, true)
        }
        XCTAssertEqual(seen, [[127, 0, 0, 1]])
        XCTAssertFalse(server.wasConnected, "the refused address was connected to")
    }

    func testAnAdmittedAddressIsFetchedWithItsBodyAndKeptHeaders() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nRetry-After: 7\r\nX-Other: 1\r\n\r\nhello")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 5, keptHeaders: ["retry-after"]))
        let response = try easy.perform(request(server.url, admitsAddress: { $0 == [127, 0, 0, 1] }))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Array("hello".utf8))
        XCTAssertEqual(response.headers, ["retry-after": "7"])
        XCTAssertFalse(response.usedHTTP2)
        XCTAssertTrue(server.request.hasPrefix("GET / HTTP/1.1\r\n"), server.request)
    }

    func testABodyPastTheLimitStopsTheTransfer() throws {
        // No Content-Length: the limit is found while reading, not from the header.
        let server = try OneAnswerServer(answer: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + String(repeating: "x", count: 100))
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 99))
        XCTAssertThrowsError(try easy.perform(request(server.url))) { error in
            let failure = error as? CurlFailure
            XCTAssertEqual(failure?.kind, .bodyTooLarge)
            XCTAssertEqual(failure?.status, 200)
            XCTAssertEqual(failure?.beforeSending, false)
        }
    }

    func testADeclaredLengthPastTheLimitIsRefusedBeforeTheBody() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 99))
        XCTAssertThrowsError(try easy.perform(request(server.url))) { error in
            XCTAssertEqual((error as? CurlFailure)?.kind, .bodyTooLarge)
        }
    }

    func testTheBodyRuleRefusesAStatusBeforeReadingItsBody() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 1024))
        XCTAssertThrowsError(try easy.perform(request(server.url, bodyUse: { $0 == 200 ? .keep : .refuse }))) { error in
            XCTAssertEqual((error as? CurlFailure)?.kind, .statusRefused(404))
            XCTAssertEqual((error as? CurlFailure)?.status, 404)
        }
    }

    func testARedirectIsNotFollowedAndItsDiscardedBodyIsNotKept() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 3\r\n\r\nabc")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 1024))
        let response = try easy.perform(request(server.url, bodyUse: { $0 == 200 ? .keep : .discard }))
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.body, [])
        XCTAssertEqual(response.redirectURL, server.url + "next")
    }

    func testAPostSendsItsBodyWithItsLength() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 204 No Content\r\n\r\n")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], headers: ["Content-Type: text/plain"], maximumBodyBytes: 10))
        var post = request(server.url)
        post.postBody = Array("a=1".utf8)
        XCTAssertEqual(try easy.perform(post).status, 204)
        XCTAssertTrue(server.request.hasPrefix("POST / HTTP/1.1\r\n"), server.request)
        XCTAssertTrue(server.request.contains("Content-Length: 3\r\n"), server.request)
        XCTAssertTrue(server.request.contains("Content-Type: text/plain\r\n"), server.request)
        XCTAssertFalse(server.request.contains("Expect:"), server.request)
        XCTAssertTrue(server.request.hasSuffix("\r\n\r\na=1"), server.request)
    }

    func testAParsedURLIsWhatIsFetchedAndTheSchemeRuleHolds() throws {
        let url = try XCTUnwrap(CurlURL("HTTP://user:pw@0x7f.1:1/a"))
        XCTAssertEqual(url.scheme, "http")
        XCTAssertEqual(url.host, "127.0.0.1")
        XCTAssertTrue(url.hasCredentials)
        XCTAssertNil(CurlURL("http://[::1"))

        let easy = try CurlEasy(options: CurlOptions(schemes: ["https"], maximumBodyBytes: 10))
        XCTAssertThrowsError(try easy.perform(CurlRequest(target: .parsed(url), timeout: .seconds(2), connectTimeout: .seconds(2)))) { error in
            XCTAssertEqual((error as? CurlFailure)?.kind, .unsupportedScheme)
        }
    }

    /// The avatar's redirect pattern: one handle, a parsed URL released after
    /// its hop, then another hop by text; nothing of the first stays pointed at.
    func testOneHandlePerformsAgainAfterItsParsedURLIsGone() throws {
        let first = try OneAnswerServer(answer: "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n")
        let second = try OneAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let easy = try CurlEasy(options: CurlOptions(schemes: ["http"], maximumBodyBytes: 10))
        do {
            let url = try XCTUnwrap(CurlURL(first.url))
            let response = try easy.perform(CurlRequest(target: .parsed(url), timeout: .seconds(5), connectTimeout: .seconds(2),
                                                        bodyUse: { $0 == 200 ? .keep : .discard }))
            XCTAssertEqual(response.status, 302)
        }
        let response = try easy.perform(request(second.url))
        XCTAssertEqual(response.body, Array("ok".utf8))
    }

    func testMillisecondsRoundUpAndAreNeverZero() {
        XCTAssertEqual(CurlEasy.milliseconds(.zero), 1)
        XCTAssertEqual(CurlEasy.milliseconds(.microseconds(1)), 1)
        XCTAssertEqual(CurlEasy.milliseconds(.microseconds(1_001)), 2)
        XCTAssertEqual(CurlEasy.milliseconds(.seconds(3)), 3_000)
        XCTAssertEqual(CurlEasy.milliseconds(.seconds(-1)), 1)
    }

    private func request(_ url: String, bodyUse: @escaping (Int) -> CurlRequest.BodyUse = { _ in .keep },
                         admitsAddress: (([UInt8]) -> Bool)? = nil) -> CurlRequest {
        CurlRequest(target: .text(url), timeout: .seconds(5), connectTimeout: .seconds(2), bodyUse: bodyUse,
                    admitsAddress: admitsAddress)
    }

    private func closedPort() throws -> Int {
        let listener = try OneAnswerServer.listen()
        close(listener.fd)
        return listener.port
    }
}

/// Accepts one connection on 127.0.0.1, reads one request (its head and a
/// `Content-Length` body) and writes `answer`, then closes.
private final class OneAnswerServer: @unchecked Sendable {
    // @unchecked: `received` and `connected` are written by the serving
    // thread and read only after `finished` is signalled (the semaphore
    // orders the two), or not at all.
    let url: String
    private let finished = DispatchSemaphore(value: 0)
    private var received = ""
    private var connected = false
    private let fd: Int32

    init(answer: String) throws {
        let listener = try Self.listen()
        fd = listener.fd
        url = "http://127.0.0.1:\(listener.port)/"
        let fd = self.fd
        Thread.detachNewThread { [self] in
            defer { close(fd); finished.signal() }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 3_000) == 1 else { return }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            connected = true
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !Self.isComplete(bytes) {
                let count = recv(client, &chunk, chunk.count, 0)
                guard count > 0 else { break }
                bytes += chunk[0..<count]
            }
            received = String(decoding: bytes, as: UTF8.self)
            let reply = Array(answer.utf8)
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(client, Int32(SHUT_WR))
        }
    }

    /// The request as received (waits for the exchange to end).
    var request: String {
        finished.wait()
        finished.signal()
        return received
    }

    /// Whether anything connected (waits up to the server's 3 s).
    var wasConnected: Bool {
        finished.wait()
        finished.signal()
        return connected
    }

    static func listen() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, Glibc.listen(fd, 4) == 0 else {
            close(fd)
            throw XCTSkip("cannot listen on a loopback port")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }
}
