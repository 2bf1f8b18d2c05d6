import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
import FCMClient
import Foundation
import XCTest

/// Raw HTTP/2 requests to the FCM simulator (not through `FCMClient`), to
/// see its exact answers: any path, body and authorization.
final class FCMSimulatorProbe {
    let testbed: FCMTestbed
    let pool: HTTP2ConnectionPool
    /// A valid access token, fetched with the testbed's service account.
    let accessToken: String

    init(_ testbed: FCMTestbed) async throws {
        self.testbed = testbed
        pool = try HTTP2ConnectionPool(host: "127.0.0.1", port: testbed.simulator.port,
                                       tls: TLSConfiguration(caFile: testbed.caFile))
        let fetcher = ServiceAccountTokenFetcher(serviceAccount: testbed.serviceAccount, configuration: testbed.tokenEndpoint)
        accessToken = try await fetcher.fetch(now: testbed.clock.epochSeconds).accessToken
    }

    deinit { pool.shutdown() }

    var sendPath: String { "/v1/projects/\(FCMTestbed.projectID)/messages:send" }

    /// POSTs `body` to `path` (the send path by default) with the access token.
    func post(_ body: String, path: String? = nil, authorization: String?? = nil,
              contentType: String = "application/json") async throws -> HTTP2Response {
        var headers = [HTTPHeader("content-type", contentType)]
        switch authorization {
        case .none: headers.append(HTTPHeader("authorization", "Bearer \(accessToken)"))
        case .some(.some(let value)): headers.append(HTTPHeader("authorization", value))
        case .some(.none): break
        }
        return try await pool.send(HTTP2Request(path: path ?? sendPath, headers: headers, body: Array(body.utf8)))
    }

    /// POSTs `{"message":<message>}`.
    func send(message: String) async throws -> HTTP2Response {
        try await post(#"{"message":\#(message)}"#)
    }

    /// POSTs a form to the token endpoint.
    func grant(form: String) async throws -> HTTP2Response {
        try await post(form, path: "/token", authorization: .some(nil), contentType: "application/x-www-form-urlencoded")
    }
}

/// Google's error body, read with Foundation (independent of the client's parser).
struct GoogleErrorBody {
    let code: Int
    let status: String
    let message: String
    let fcmErrorCode: String?
    let violations: [(field: String?, description: String)]
    let detailTypes: [String]

    init(_ response: HTTP2Response, file: StaticString = #filePath, line: UInt = #line) throws {
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard let error = object?["error"] as? [String: Any], object?.count == 1 else {
            XCTFail("not Google's error shape: \(String(decoding: response.body, as: UTF8.self))", file: file, line: line)
            throw XCTSkip("bad error body")
        }
        code = error["code"] as? Int ?? -1
        status = error["status"] as? String ?? ""
        message = error["message"] as? String ?? ""
        let details = error["details"] as? [[String: Any]] ?? []
        detailTypes = details.compactMap { $0["@type"] as? String }
        fcmErrorCode = details.first { ($0["@type"] as? String) == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }?["errorCode"] as? String
        let badRequest = details.first { ($0["@type"] as? String) == "type.googleapis.com/google.rpc.BadRequest" }
        violations = (badRequest?["fieldViolations"] as? [[String: Any]] ?? []).map {
            ($0["field"] as? String, $0["description"] as? String ?? "")
        }
        XCTAssertEqual(code, response.status, "error.code is the HTTP status", file: file, line: line)
    }
}
