@testable import GatewayHTTP
import XCTest

/// The request target's percent-decoding: every `%HH` but `%00` and the
/// delimiters `%2F`, `%3F`, `%23`.
final class HTTPTargetEscapesTests: XCTestCase {
    private func decoded(_ text: String) -> String {
        var bytes = Array(text.utf8) + [0]
        let length = bytes.withUnsafeMutableBufferPointer { HTTPTargetEscapes.decodeInPlace($0.baseAddress!) }
        XCTAssertEqual(bytes[length], 0, "still NUL-terminated")
        return String(decoding: bytes[..<length], as: UTF8.self)
    }

    func testEscapesAreDecodedButNULAndDelimitersStayWritten() {
        XCTAssertEqual(decoded("/heal%74hz"), "/healthz")
        XCTAssertEqual(decoded("/a%2Fb%2fc"), "/a%2Fb%2fc", "a decoded / would make another path")
        XCTAssertEqual(decoded("/metrics%3Fx%3f%23y"), "/metrics%3Fx%3f%23y", "nor ? or #: another query or fragment")
        XCTAssertEqual(decoded("/%76%31/n%6Ftify"), "/v1/notify")
        XCTAssertEqual(decoded("/v1/notify%00junk"), "/v1/notify%00junk")
        XCTAssertEqual(decoded("%%41%"), "%A%")
        XCTAssertEqual(decoded("%4"), "%4", "a cut-off escape at the end")
        XCTAssertEqual(decoded("%zz%4g"), "%zz%4g")
        XCTAssertEqual(decoded(""), "")
    }
}
