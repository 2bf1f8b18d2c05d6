@testable import FCMClient
import XCTest

/// The libcurl POST used for the token exchange, against the h2-only simulator.
final class HTTPSPostTests: XCTestCase {
    func testLibcurlNegotiatesHTTP2OverTLSAndKeepsRetryAfter() async throws {
        let testbed = try FCMTestbed()
        testbed.simulator.setTokenEndpointDown(true, retryAfter: 12)
        let post = HTTPSPost(url: testbed.simulator.tokenURI, headers: ["Content-Type: application/x-www-form-urlencoded"],
                             body: Array("grant_type=x".utf8), caFile: testbed.caFile, connectTimeout: .seconds(5),
                             timeout: .seconds(5), maximumResponseBytes: 4096)
        let response = try await post.send(on: DispatchQueue(label: "test")).get()
        XCTAssertEqual(response.httpMajorVersion, 2)
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.headers["retry-after"], "12")
        XCTAssertEqual(response.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(testbed.simulator.statistics.unansweredStreams, 0)
    }

    func testOnlyHTTPSIsSpoken() async throws {
        let post = HTTPSPost(url: "http://127.0.0.1:9/token", headers: [], body: [], caFile: nil,
                             connectTimeout: .seconds(1), timeout: .seconds(1), maximumResponseBytes: 1024)
        let result = await post.send(on: DispatchQueue(label: "test"))
        guard case .failure(let failure) = result else { return XCTFail("plain HTTP was used") }
        XCTAssertTrue(failure.description.contains("curl_easy_perform"), failure.description)
    }

    func testFormEncodingEscapesEverythingButUnreservedCharacters() {
        XCTAssertEqual(ServiceAccountTokenFetcher.formEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer"),
                       "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
        XCTAssertEqual(ServiceAccountTokenFetcher.formEncoded("a.b-c_d~e f+g/é"), "a.b-c_d~e%20f%2Bg%2F%C3%A9")
    }
}
