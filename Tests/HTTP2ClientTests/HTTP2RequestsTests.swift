@testable import HTTP2Client
@testable import PayloadBuilder
import XCTest

/// Both forms of a send's requests give each request's parts, read in place
/// through the table the connections use, the same as the request itself.
final class HTTP2RequestsTests: XCTestCase {
    private let rendered = (0..<3).map { index in
        ProviderRequest(platform: .apns, recipientIndex: index, token: "token\(index)", origin: "https://127.0.0.1",
                        path: "/3/device/token\(index)",
                        headers: [HTTPHeader("apns-topic", "com.example"), HTTPHeader("apns-id", "id-\(index)")],
                        body: Array("{\"n\":\(index)}".utf8))
    }
    private let separate = [
        HTTP2Request(method: "POST", path: "/a", authorization: "bearer one", headers: [HTTPHeader("x", "1")], body: [1],
                     timeout: .seconds(1)),
        HTTP2Request(method: "PUT", path: "/b", headers: [], body: [], timeout: .seconds(2)),
    ]

    /// What the table reads for request `index`, as a request.
    private func read(_ table: RequestTable, _ index: Int) -> HTTP2Request {
        let parts = table.parts(index)
        return HTTP2Request(method: parts.method.pointee, path: parts.path.pointee, authorization: parts.authorization.pointee,
                            headers: parts.headers.pointee, body: parts.body.pointee, timeout: table.timeout(index))
    }

    func testRenderedRequestsShareTheMethodAuthorizationAndTimeout() {
        let requests = HTTP2Requests(rendered: rendered, authorization: "bearer jwt", timeout: .seconds(7))
        XCTAssertEqual(requests.count, 3)
        defer { withExtendedLifetime(requests) {} }
        let table = requests.table()
        for index in requests.indices {
            let expected = HTTP2Request(method: "POST", path: rendered[index].path, authorization: "bearer jwt",
                                        headers: rendered[index].headers, body: rendered[index].body, timeout: .seconds(7))
            XCTAssertEqual(read(table, index), expected, "request \(index) through the table")
            XCTAssertEqual(requests[index], expected, "request \(index) by subscript")
            XCTAssertEqual(requests.timeout(index), .seconds(7))
        }
        XCTAssertEqual(table.parts(0).authorizationIdentity, table.parts(2).authorizationIdentity, "one authorization for all")
    }

    func testSeparateRequestsKeepTheirOwnParts() {
        let requests = HTTP2Requests(separate)
        defer { withExtendedLifetime(requests) {} }
        let table = requests.table()
        for index in separate.indices {
            XCTAssertEqual(read(table, index), separate[index])
            XCTAssertEqual(requests[index], separate[index])
            XCTAssertEqual(requests.timeout(index), separate[index].timeout)
        }
        XCTAssertNotEqual(table.parts(0).authorizationIdentity, table.parts(1).authorizationIdentity)
    }

    func testASubsetHasTheRequestsAtThePositionsInOrder() {
        let subset = HTTP2Requests(rendered: rendered, authorization: nil, timeout: .seconds(3)).subset([2, 0])
        XCTAssertEqual(subset.count, 2)
        withExtendedLifetime(subset) {
            XCTAssertEqual(read(subset.table(), 0).path, "/3/device/token2")
            XCTAssertEqual(read(subset.table(), 1).path, "/3/device/token0")
            XCTAssertNil(read(subset.table(), 1).authorization)
        }
        let one = HTTP2Requests(separate).subset([1])
        withExtendedLifetime(one) { XCTAssertEqual(one.table().timeout(0), .seconds(2)) }
        XCTAssertTrue(HTTP2Requests([]).isEmpty)
    }

    /// A batch keeps the requests its table points into: they are read
    /// after every other owner is gone.
    func testABatchKeepsTheRequestsItsTablePointsInto() {
        var batch: BatchCompletion?
        do {
            let made = (0..<2).map { HTTP2Request(path: "/kept/\($0)/" + String(repeating: "x", count: 40), body: [UInt8]($0..<200)) }
            batch = BatchCompletion(requests: HTTP2Requests(made)) { _ in }
        }
        XCTAssertEqual(batch?.requests.parts(1).path.pointee, "/kept/1/" + String(repeating: "x", count: 40))
        XCTAssertEqual(batch?.requests.parts(1).body.pointee, [UInt8](1..<200))
    }
}
