@testable import HTTP2Client
import XCTest

/// A response keeps its first header apart from the others: whatever the
/// count, the headers come back in the order they came, a lookup finds the
/// first of a name, and two responses with the same parts are equal however
/// they were made.
final class HTTP2ResponseTests: XCTestCase {
    private let all = [HTTPHeader("apns-id", "a"), HTTPHeader("retry-after", "5"), HTTPHeader("apns-id", "b"),
                       HTTPHeader("x-unique", "c")]

    func testTheHeadersComeBackInOrderWhateverTheirCount() {
        for count in 0...all.count {
            let headers = Array(all.prefix(count))
            XCTAssertEqual(HTTP2Response(status: 200, headers: headers).headers, headers, "\(count) given at once")
            // As a stream gathers them: the first apart, the others after it.
            let gathered = HTTP2Response(status: 200, firstHeader: headers.first, laterHeaders: Array(headers.dropFirst()), body: [])
            XCTAssertEqual(gathered.headers, headers, "\(count) gathered")
            XCTAssertEqual(gathered, HTTP2Response(status: 200, headers: headers), "\(count): the same parts, equal")
        }
    }

    func testALookupFindsTheFirstHeaderOfTheName() {
        let response = HTTP2Response(status: 200, headers: all)
        XCTAssertEqual(response.header("apns-id"), "a", "the first, not the later one")
        XCTAssertEqual(response.header("retry-after"), "5")
        XCTAssertEqual(response.header("x-unique"), "c", "the last")
        XCTAssertNil(response.header("apns-i"), "a prefix is not the name")
        XCTAssertNil(response.header("apns-id2"))
        XCTAssertNil(response.header(""))
        XCTAssertNil(HTTP2Response(status: 200).header("apns-id"), "no headers")
        XCTAssertEqual(HTTP2Response(status: 200, headers: [HTTPHeader("", "empty name")]).header(""), "empty name")
    }

    func testSettingTheHeadersReplacesThemAll() {
        var response = HTTP2Response(status: 410, headers: all, body: [1])
        response.headers = [HTTPHeader("retry-after", "9")]
        XCTAssertEqual(response, HTTP2Response(status: 410, headers: [HTTPHeader("retry-after", "9")], body: [1]))
        XCTAssertNil(response.header("apns-id"))
        response.headers = []
        XCTAssertEqual(response, HTTP2Response(status: 410, body: [1]))
        XCTAssertNotEqual(response, HTTP2Response(status: 410, headers: [HTTPHeader("retry-after", "9")], body: [1]))
    }
}
