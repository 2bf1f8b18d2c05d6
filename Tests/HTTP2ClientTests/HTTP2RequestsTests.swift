@testable import HTTP2Client
@testable import PayloadBuilder
import XCTest

/// Both forms of a send's requests give each request as it was given
/// (what a batch copies is checked in `RequestBytesTests`).
final class HTTP2RequestsTests: XCTestCase {
    private let rendered = (0..<3).map { index in
        ProviderRequest(platform: .apns, recipientIndex: index, token: "token\(index)", origin: "https://127.0.0.1",
                        path: "/3/device/token\(index)",
                        headers: [HTTPHeader("apns-topic", "com.example"), HTTPHeader("apns-id", "id-\(index)")],
                        body: ArraySlice("{\"n\":\(index)}".utf8))
    }
    private let separate = [
        HTTP2Request(method: "POST", path: "/a", authorization: "bearer one", headers: [HTTPHeader("x", "1")], body: [1],
                     timeout: .seconds(1)),
        HTTP2Request(method: "PUT", path: "/b", headers: [], body: [], timeout: .seconds(2)),
    ]

    func testRenderedRequestsShareTheMethodAuthorizationAndTimeout() {
        let requests = HTTP2Requests(rendered: rendered, authorization: "bearer jwt", timeout: .seconds(7))
        XCTAssertEqual(requests.count, 3)
        let expected = rendered.map { request in
            HTTP2Request(method: "POST", path: request.path, authorization: "bearer jwt", headers: request.headers, body: Array(request.body),
                         timeout: .seconds(7))
        }
        for index in requests.indices {
            XCTAssertEqual(requests[index], expected[index], "request \(index) by subscript")
            XCTAssertEqual(requests.timeout(index), .seconds(7))
            XCTAssertEqual(requests.header(index, at: 1), HTTPHeader("apns-id", "id-\(index)"))
        }
    }

    func testSeparateRequestsKeepTheirOwnParts() {
        let requests = HTTP2Requests(separate)
        for index in separate.indices {
            XCTAssertEqual(requests[index], separate[index])
            XCTAssertEqual(requests.timeout(index), separate[index].timeout)
        }
        XCTAssertEqual(requests.header(0, at: 0), HTTPHeader("x", "1"))
    }

    func testASubsetHasTheRequestsAtThePositionsInOrder() {
        let subset = HTTP2Requests(rendered: rendered, authorization: nil, timeout: .seconds(3)).subset([2, 0])
        XCTAssertEqual(subset.count, 2)
        XCTAssertEqual(subset.indices.map { subset[$0].path }, ["/3/device/token2", "/3/device/token0"])
        XCTAssertNil(subset[1].authorization)
        let one = HTTP2Requests(separate).subset([1])
        XCTAssertEqual(one.timeout(0), .seconds(2))
        XCTAssertTrue(HTTP2Requests([]).isEmpty)
    }
}
