@testable import GatewayHTTP
import XCTest

/// The request target's percent-decoding: every `%HH` but `%00`.
final class HTTPTargetEscapesTests: XCTestCase {
    private func decoded(_ text: String) -> String {
        var bytes = Array(text.utf8) + [0]
        let length = bytes.withUnsafeMutableBufferPointer { HTTPTargetEscapes.decodeInPlace($0.baseAddress!) }
        XCTAssertEqual(bytes[length], 0, "still NUL-terminated")
        return String(decoding: bytes[..<length], as: UTF8.self)
    }

    func testEscapesAreDecodedButNULStaysWritten() {
        XCTAssertEqual(decoded("/heal%74hz"), "/healthz")
        XCTAssertEqual(decoded("/a%2Fb%2fc"), "/a/b/c")
        XCTAssertEqual(decoded("/v1/notify%00junk"), "/v1/notify%00junk")
        XCTAssertEqual(decoded("%%41%"), "%A%")
        XCTAssertEqual(decoded("%4"), "%4", "a cut-off escape at the end")
        XCTAssertEqual(decoded("%zz%4g"), "%zz%4g")
        XCTAssertEqual(decoded(""), "")
    }
}
