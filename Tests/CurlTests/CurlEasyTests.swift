import CCurl
import Curl
import XCTest

/// The shared libcurl wrapper: failures name the call and keep libcurl's
/// code, and timeouts never become "no timeout".
final class CurlEasyTests: XCTestCase {
    func testASetterThatLibcurlRefusesNamesTheOptionAndKeepsTheCode() throws {
        let easy = try CurlEasy()
        XCTAssertThrowsError(try easy.set(CURLOPT_PROTOCOLS_STR, "gopher-but-not-really", name: "CURLOPT_PROTOCOLS_STR")) { error in
            let failure = error as? CurlFailure
            XCTAssertEqual(failure?.call, "curl_easy_setopt(CURLOPT_PROTOCOLS_STR)")
            XCTAssertNotNil(failure?.code)
            XCTAssertNotEqual(failure?.code, CURLE_OK)
            XCTAssertEqual(failure?.beforeSending, true)
        }
    }

    func testATransferToAClosedPortFailsBeforeSendingWithItsCode() throws {
        // A port nobody listens on: bind one, read its number, close it.
        let easy = try CurlEasy()
        try easy.set(CURLOPT_URL, "http://127.0.0.1:\(try closedPort())/", name: "CURLOPT_URL")
        try easy.set(CURLOPT_NOSIGNAL, 1, name: "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_TIMEOUT_MS, 2_000, name: "CURLOPT_TIMEOUT_MS")
        XCTAssertThrowsError(try easy.perform()) { error in
            let failure = error as? CurlFailure
            XCTAssertEqual(failure?.call, "curl_easy_perform")
            XCTAssertEqual(failure?.code, CURLE_COULDNT_CONNECT)
            XCTAssertEqual(failure?.beforeSending, true)
            XCTAssertFalse(failure?.message.isEmpty ?? true)
        }
        XCTAssertEqual(easy.responseCode, 0)
        XCTAssertNil(easy.redirectURL)
    }

    func testMillisecondsRoundUpAndAreNeverZero() {
        XCTAssertEqual(CurlEasy.milliseconds(.zero), 1)
        XCTAssertEqual(CurlEasy.milliseconds(.microseconds(1)), 1)
        XCTAssertEqual(CurlEasy.milliseconds(.microseconds(1_001)), 2)
        XCTAssertEqual(CurlEasy.milliseconds(.seconds(3)), 3_000)
        XCTAssertEqual(CurlEasy.milliseconds(.seconds(-1)), 1)
    }

    private func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw XCTSkip("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
