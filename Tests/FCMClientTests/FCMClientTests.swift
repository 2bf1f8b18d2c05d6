import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
import FCMClient
import Foundation
import PayloadBuilder
import XCTest

/// The FCM client against the strict in-process simulator, over real
/// sockets, TLS and HTTP/2, with real OAuth grants.
final class FCMClientTests: XCTestCase {
    func testAMessageRenderedByPayloadBuilderIsAcceptedAsIs() async throws {
        let testbed = try FCMTestbed()
        let client = try testbed.client()
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 3, text: "Xin chào 👋 \"quoted\"",
                                            data: [DataEntry("deeplink", "chat://conv-1/msg-1")])
        XCTAssertEqual(requests.first?.url, "\(testbed.simulator.url)/v1/projects/\(FCMTestbed.projectID)/messages:send")
        let outcomes = await client.send(requests)
        let statistics = testbed.simulator.statistics
        for (index, outcome) in outcomes.enumerated() {
            guard case .success(.accepted(let name)) = outcome else { return XCTFail("\(outcome)") }
            XCTAssertEqual(statistics.acceptedNames.filter { $0 == name }.count, 1)
            let recorded = try XCTUnwrap(statistics.messages.first { $0.name == name })
            XCTAssertEqual(recorded.token, requests[index].token)
            XCTAssertEqual(recorded.body, Array(requests[index].body), "sent byte for byte")
        }
        XCTAssertEqual(statistics.acceptedTotal, 3)
        XCTAssertEqual(statistics.rejectedTotal, 0)
    }

    func testOneOAuthGrantServesFiftySends() async throws {
        let testbed = try FCMTestbed()
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        for request in try testbed.requests(count: 50) {
            let outcome = try await client.send(request)
            guard case .accepted = outcome else { return XCTFail("\(outcome)") }
        }
        XCTAssertEqual(tokens.grantCount, 1)
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 1)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 50)
        XCTAssertEqual(client.openConnections, 1)
    }

    func testA401WithoutFcmErrorMeansOneReGrantAndOneResend() async throws {
        let testbed = try FCMTestbed()
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let requests = try testbed.requests(count: 6)
        _ = try await client.send(requests[0])
        testbed.simulator.expireAccessTokens()  // Google forgot our token early
        let outcomes = await client.send(Array(requests[1...]))
        for outcome in outcomes {
            guard case .success(.accepted) = outcome else { return XCTFail("\(outcome)") }
        }
        XCTAssertEqual(tokens.grantCount, 2, "one re-grant for the whole batch")
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.rejectedPerErrorCode, ["UNAUTHENTICATED": 5])
        XCTAssertEqual(statistics.acceptedTotal, 6)
    }

    func testAPermissionDeniedProjectIsRetriedOnceThenAConfigurationError() async throws {
        let testbed = try FCMTestbed()
        let tokens = testbed.tokenCache()
        let client = try testbed.client(tokens: tokens)
        defer { client.shutdown() }
        let app = AppProfile(name: "other", fcm: FCMTarget(projectID: "not-our-project", baseURL: testbed.simulator.url))
        let event = Event(eventID: "c:m", conversation: Conversation(id: "c"), message: Message(id: "m", text: "hi"),
                          sender: Sender(id: "s", displayName: "S"), recipients: [Recipient(platform: .fcm, token: FCMTestbed.token(1))])
        let request = try EventRenderer(config: RenderConfig(apps: [app])).render(event, app: app, avatar: .none, now: testbed.clock.epochSeconds).requests[0]
        let outcome = try await client.send(request)
        guard case .rejected(let rejection) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(rejection.status, 403)
        XCTAssertEqual(rejection.rpcStatus, "PERMISSION_DENIED")
        XCTAssertFalse(rejection.hasFCMErrorDetail)
        XCTAssertTrue(rejection.isAboutTheAccessToken)
        XCTAssertTrue(rejection.verdict.isConfiguration, "\(rejection.verdict)")
        XCTAssertEqual(tokens.grantCount, 2, "one fresh token was tried")
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerErrorCode["PERMISSION_DENIED"], 2)
        // The fresh token was refused too: later sends are refused once
        // each, with no grant and no resend (regression: every event
        // threw the token away and asked for a new one).
        for _ in 0..<5 {
            guard case .rejected(let again) = try await client.send(request) else { return XCTFail() }
            XCTAssertTrue(again.verdict.isConfiguration, "\(again.verdict)")
        }
        XCTAssertEqual(tokens.grantCount, 2)
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerErrorCode["PERMISSION_DENIED"], 7)
    }

    func testEveryErrorCodeIsMappedToItsVerdict() async throws {
        let testbed = try FCMTestbed()
        let client = try testbed.client()
        defer { client.shutdown() }
        let cases: [(FCMSimulatorResponse, FCMErrorCode, ProviderVerdict)] = [
            (.unregistered, .unregistered, .dropToken(since: nil)),
            (.invalidRegistrationToken, .invalidArgument, .dropToken(since: nil)),
            (FCMSimulatorResponse(status: 400, rpcStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
                                  message: "Request contains an invalid argument."), .invalidArgument, .final),
            (.senderIDMismatch, .senderIDMismatch, .dropToken(since: nil)),
            (.quotaExceeded(retryAfter: 30), .quotaExceeded, .retry(after: .seconds(30))),
            (.quotaExceeded(), .quotaExceeded, .retry(after: nil)),
            (.unavailable(retryAfter: 5), .unavailable, .retry(after: .seconds(5))),
            (.unavailable(), .unavailable, .retry(after: nil)),
            (.internalError, .internal, .retry(after: nil)),
            (.thirdPartyAuthError, .thirdPartyAuthError, .final),
            (FCMSimulatorResponse(status: 401, rpcStatus: "UNAUTHENTICATED", errorCode: "APNS_AUTH_ERROR",
                                  message: "Auth error from APNS"), .apnsAuthError, .final),
            (FCMSimulatorResponse(status: 400, rpcStatus: "INVALID_ARGUMENT", errorCode: "UNSPECIFIED_ERROR",
                                  message: "Unknown"), .unspecified, .final),
            (FCMSimulatorResponse(status: 503, rpcStatus: "UNAVAILABLE", errorCode: "SOMETHING_NEW", message: "New"),
             FCMErrorCode("SOMETHING_NEW"), .retry(after: nil)),
        ]
        let requests = try testbed.requests(count: cases.count)
        for (index, (response, _, _)) in cases.enumerated() {
            testbed.simulator.always(token: requests[index].token, response)
        }
        let outcomes = await client.send(requests)
        for (index, (response, code, verdict)) in cases.enumerated() {
            guard case .success(.rejected(let rejection)) = outcomes[index] else {
                XCTFail("\(response): expected a rejection, got \(outcomes[index])")
                continue
            }
            XCTAssertEqual(rejection.status, response.status, "\(response)")
            XCTAssertEqual(rejection.errorCode, code, "\(response)")
            XCTAssertTrue(rejection.hasFCMErrorDetail)
            XCTAssertEqual(rejection.rpcStatus, response.rpcStatus)
            XCTAssertEqual(rejection.message, response.message)
            XCTAssertEqual(rejection.verdict, verdict, "\(response)")
            XCTAssertEqual(rejection.dropsToken, verdict.dropsToken)
            XCTAssertEqual(rejection.retryAfter, response.retryAfter.map { .seconds($0) })
        }
        XCTAssertEqual(testbed.simulator.statistics.grantsIssued, 1, "FCM errors with a detail never re-grant")
    }

    func testAScriptedFailureThenSuccessIsSeenInOrder() async throws {
        let testbed = try FCMTestbed()
        let client = try testbed.client()
        defer { client.shutdown() }
        let request = try testbed.requests(count: 1)[0]
        testbed.simulator.script(token: request.token, responses: [.unavailable(retryAfter: 1)])
        let first = try await client.send(request)
        guard case .rejected(let rejection) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(rejection.verdict, .retry(after: .seconds(1)))
        XCTAssertTrue(rejection.verdict.isRetryable)
        let second = try await client.send(request)
        guard case .accepted = second else { return XCTFail("\(second)") }
    }

    func testAnUnreachableFCMIsARetryableTransportError() async throws {
        let testbed = try FCMTestbed()
        let tokens = testbed.tokenCache()
        _ = try await tokens.accessToken()
        let client = try FCMClient(baseURL: "https://127.0.0.1:1", projectID: FCMTestbed.projectID,
                                   tls: TLSConfiguration(caFile: testbed.caFile), tokens: tokens,
                                   requestTimeout: .milliseconds(300))
        defer { client.shutdown() }
        let outcome = await client.send(try testbed.requests(count: 1))[0]
        guard case .failure(let error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertTrue(error.isRetryable, "\(error)")
    }
}
