import APNsSimulator
import GatewayService
import PayloadBuilder
import Synchronization
import XCTest
import PushGWSync
import TestSupport

/// `/v1/notify` end to end: HTTP in, real HTTP/2 to the strict APNs
/// simulator, per-device outcomes out.
final class NotifyEndToEndTests: XCTestCase {
    func testAnEventIsSentAndEveryDeviceReported() async throws {
        let testbed = try ServiceTestbed()
        let tokens = (0..<3).map(ServiceTestbed.token)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: tokens))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let json = try JSONParser.parse(answer.body)
        XCTAssertEqual(json["event_id"], .string("c-1:m-1"))
        XCTAssertEqual(json["duplicate"], .bool(false))
        guard case let .array(results)? = json["results"] else { return XCTFail("no results") }
        XCTAssertEqual(results.count, 3)
        for (index, result) in results.enumerated() {
            XCTAssertEqual(result["status"], .string("sent"))
            XCTAssertEqual(result["token"], .string(tokens[index]), "results carry full tokens")
        }
        XCTAssertEqual(json["rejected"], .array([]))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 3)
    }

    func testRejectedTokensAreListedAndAFailureAnswers502() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        settings.retry.maximumAttempts = 3
        let testbed = try ServiceTestbed(settings: settings)
        let tokens = (0..<3).map(ServiceTestbed.token)
        testbed.simulator.always(token: tokens[0], .unregistered(timestampMilliseconds: 1_767_225_600_000))
        testbed.simulator.always(token: tokens[1], .internalServerError)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: tokens))
        XCTAssertEqual(answer.status, 502, "a failed device makes the caller retry")
        let json = try JSONParser.parse(answer.body)
        XCTAssertEqual(json["rejected"], .array([.string(tokens[0])]))
        guard case let .array(results)? = json["results"] else { return XCTFail() }
        XCTAssertEqual(results[0]["status"], .string("invalid_token"))
        XCTAssertEqual(results[0]["reason"], .string("Unregistered"))
        XCTAssertEqual(results[0]["invalid_since_ms"], .int(1_767_225_600_000), "APNs's 410 timestamp, for the caller's re-registration check")
        XCTAssertNil(results[1]["invalid_since_ms"])
        XCTAssertEqual(results[1]["status"], .string("failed"))
        XCTAssertEqual(results[1]["retryable"], .bool(true))
        XCTAssertEqual(results[1]["reason"], .string("InternalServerError"))
        XCTAssertEqual(results[2]["status"], .string("sent"))
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerReason["InternalServerError"], 3, "retried up to the attempt limit")
    }

    func testADuplicateAnswersTheRecordedInvalidSinceTime() async throws {
        let testbed = try ServiceTestbed()
        let tokens = [ServiceTestbed.token(1), ServiceTestbed.token(2)]
        testbed.simulator.always(token: tokens[0], .unregistered(timestampMilliseconds: 1_700_000_000_123))
        testbed.simulator.always(token: tokens[1], .badDeviceToken)
        let body = ServiceTestbed.event(tokens: tokens)
        let first = try await testbed.call("POST", "/v1/notify", body: body)
        let second = try await testbed.call("POST", "/v1/notify", body: body)
        for answer in [first, second] {
            XCTAssertEqual(answer.status, 200)
            let json = try JSONParser.parse(answer.body)
            guard case let .array(results)? = json["results"] else { return XCTFail() }
            XCTAssertEqual(results[0]["invalid_since_ms"], .int(1_700_000_000_123))
            XCTAssertNil(results[1]["invalid_since_ms"], "a 400 BadDeviceToken carries no time")
            XCTAssertEqual(json["rejected"], .array(tokens.map(JSONValue.string)))
        }
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(true))
    }

    /// Regression: a different message under the same `event_id` was
    /// answered `duplicate` from the first one's record and never sent.
    func testADifferentMessageUnderTheSameEventIDIsSentNotAnsweredAsADuplicate() async throws {
        let testbed = try ServiceTestbed()
        let token = ServiceTestbed.token(1)
        // The default ids collide when the ids hold a colon: "room:1" + ":" + "7" and "room" + ":" + "1:7".
        func event(conversation: String, message: String, text: String) -> [UInt8] {
            Array(#"{"conversation":{"id":"\#(conversation)"},"message":{"id":"\#(message)","text":"\#(text)"},"sender":{"id":"u-1","display_name":"A"},"recipients":[{"platform":"apns","token":"\#(token)"}]}"#.utf8)
        }
        let first = try await testbed.call("POST", "/v1/notify", body: event(conversation: "room:1", message: "7", text: "first"))
        let second = try await testbed.call("POST", "/v1/notify", body: event(conversation: "room", message: "1:7", text: "second"))
        XCTAssertEqual(try JSONParser.parse(first.body)["event_id"], try JSONParser.parse(second.body)["event_id"], "the ids collide")
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(false))
        // An explicit event_id reused for another text is sent too.
        let third = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "reused", tokens: [token], text: "one"))
        let fourth = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "reused", tokens: [token], text: "two"))
        XCTAssertEqual(try JSONParser.parse(fourth.body)["duplicate"], .bool(false))
        XCTAssertEqual([first, second, third, fourth].map(\.status), [200, 200, 200, 200])
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 4, "four messages, four sends")
        // The same message again is still a duplicate, whatever its title, sender name and extra data.
        let retried = Array(#"{"event_id":"reused","conversation":{"id":"c-1","title":"Renamed group"},"message":{"id":"m-1","text":"two"},"sender":{"id":"u-1","display_name":"Alice B."},"data":{"extra":"added on retry"},"recipients":[{"platform":"apns","token":"\#(token)"}]}"#.utf8)
        let again = try await testbed.call("POST", "/v1/notify", body: retried)
        XCTAssertEqual(try JSONParser.parse(again.body)["duplicate"], .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 4)
    }

    /// An APNs token is hex: a retry that spells it in capitals names the
    /// same device and is not sent again.
    func testARetryWithTheAPNsTokenInCapitalsIsADuplicate() async throws {
        let testbed = try ServiceTestbed()
        let token = "4f1c2e8a9b7d6c5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e"
        let first = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "case", tokens: [token]))
        let second = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "case", tokens: [token.uppercased()]))
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(true), String(decoding: second.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testARetryableFailureThenSuccessIsSent() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        let testbed = try ServiceTestbed(settings: settings)
        let token = ServiceTestbed.token(1)
        testbed.simulator.script(token: token, responses: [.serviceUnavailable, .tooManyRequests], thereafter: .success)
        let answer = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [token]))
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testTheSameEventTwiceIsNotSentTwice() async throws {
        let testbed = try ServiceTestbed()
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)])
        let first = try await testbed.call("POST", "/v1/notify", body: body)
        let second = try await testbed.call("POST", "/v1/notify", body: body)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(try JSONParser.parse(second.body)["duplicate"], .bool(true))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 2, "the duplicate sent nothing")
    }

    func testAReusedEventIDWithOtherDevicesStillSendsToThem() async throws {
        let testbed = try ServiceTestbed()
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "reused", tokens: [ServiceTestbed.token(1)]))
        let second = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "reused", tokens: [ServiceTestbed.token(2)]))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(testbed.simulator.statistics.acceptedPerToken[ServiceTestbed.token(2)], 1,
                       "a recorded result is for the same device only")
    }

    func testConcurrentCopiesOfOneEventShareOneSend() async throws {
        let testbed = try ServiceTestbed()
        let body = ServiceTestbed.event(id: "burst-1", tokens: [ServiceTestbed.token(1)])
        let baseURL = testbed.baseURL
        let answers = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 { group.addTask { try await ServiceTestbed.call(baseURL, "POST", "/v1/notify", body: body).body } }
            var bodies: [[UInt8]] = []
            for try await answer in group { bodies.append(answer) }
            return bodies
        }
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1, "one device, notified once")
        let duplicates = try answers.filter { try JSONParser.parse($0)["duplicate"] == .bool(true) }
        XCTAssertEqual(duplicates.count, 7)
    }

    func testTheSenderIsNeverNotified() async throws {
        let testbed = try ServiceTestbed()
        let tokens = [ServiceTestbed.token(1), ServiceTestbed.token(2)]
        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(tokens: tokens, senderID: "42", userIDs: ["42", "7"]))
        let results = try JSONParser.parse(answer.body)["results"]
        guard case let .array(items)? = results else { return XCTFail() }
        XCTAssertEqual(items[0]["status"], .string("skipped"))
        XCTAssertEqual(items[0]["reason"], .string("self"))
        XCTAssertEqual(items[1]["status"], .string("sent"))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 1)
    }

    func testRequestsWithoutTheBearerTokenAreRefused() async throws {
        let testbed = try ServiceTestbed()
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(1)])
        for bearer in [nil, "wrong", ServiceTestbed.bearer + "x", String(ServiceTestbed.bearer.dropLast())] {
            let answer = try await testbed.call("POST", "/v1/notify", body: body, bearer: bearer)
            XCTAssertEqual(answer.status, 401)
            XCTAssertEqual(try JSONParser.parse(answer.body)["error"]?["code"], .string("unauthorized"))
        }
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
    }

    func testBadInputIsAJSONErrorNamingTheField() async throws {
        let testbed = try ServiceTestbed()
        let cases: [([UInt8], Int, String, String?)] = [
            ([], 400, "empty_body", nil),
            (Array("{".utf8), 400, "invalid_json", "$"),
            (Array(#"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"apns","token":"abc"}]}"#.utf8),
             400, "invalid_event", "recipients[0].token"),
            ([UInt8](repeating: 0x20, count: 70_000), 413, "body_too_large", nil),
        ]
        for (body, status, code, field) in cases {
            let answer = try await testbed.call("POST", "/v1/notify", body: body)
            XCTAssertEqual(answer.status, status, code)
            let error = try JSONParser.parse(answer.body)["error"]
            XCTAssertEqual(error?["code"], .string(code))
            XCTAssertEqual(error?["field"], field.map(JSONValue.string) ?? .null)
        }
        let health = try await testbed.call("GET", "/healthz")
        XCTAssertEqual(health.status, 200, "the process still serves")
    }

    func testUnknownPathsAndMethodsAreJSONErrors() async throws {
        let testbed = try ServiceTestbed()
        let missing = try await testbed.call("GET", "/v2/nothing")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try JSONParser.parse(missing.body)["error"]?["code"], .string("not_found"))
        // %00 is not decoded: its NUL must not cut the path down to a route.
        for path in ["/v1/notify%00junk", "/healthz%00"] {
            let escaped = try await testbed.call(path.hasPrefix("/healthz") ? "GET" : "POST", path,
                                                 body: path.hasPrefix("/healthz") ? nil : [0x7B, 0x7D])
            XCTAssertEqual(escaped.status, 404, path)
        }
        // An escaped delimiter is not decoded into another path: a proxy
        // rule that denies /metrics must not be passed by /metrics%3Fx.
        for (method, path) in [("GET", "/metrics%3Fx"), ("GET", "/healthz%3F"), ("POST", "/v1%2Fnotify"), ("GET", "/metrics%23")] {
            let escaped = try await testbed.call(method, path, body: method == "POST" ? [0x7B, 0x7D] : nil)
            XCTAssertEqual(escaped.status, 404, path)
        }
        let wrongMethod = try await testbed.call("GET", "/v1/notify")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(try JSONParser.parse(wrongMethod.body)["error"]?["code"], .string("method_not_allowed"))
    }

    func testRenderShowsWhatNotifySendsWithTheAuthorizationRedacted() async throws {
        let testbed = try ServiceTestbed()
        let body = ServiceTestbed.event(tokens: [ServiceTestbed.token(9)])
        let render = try await testbed.call("POST", "/v1/render", body: body)
        XCTAssertEqual(render.status, 200)
        let requests = try JSONParser.parse(render.body)["requests"]
        guard case let .array(items)? = requests, let first = items.first else { return XCTFail() }
        XCTAssertEqual(first["headers"]?["authorization"], .string("bearer <redacted>"))
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0, "render sends nothing")
        _ = try await testbed.call("POST", "/v1/notify", body: body)
        let sent = try XCTUnwrap(testbed.simulator.statistics.notifications.first)
        XCTAssertEqual(try JSONParser.parse(Array(sent.payload)), first["body"], "render == what notify sends")
    }

    /// Renders written into the memory of answers sent before (handed back
    /// by the server to the dispatcher's `answerStorage`) are the same
    /// answers, for the same event and for another one in between.
    func testRendersIntoReusedAnswerMemoryGiveTheSameAnswers() async throws {
        let testbed = try ServiceTestbed()
        let first = ServiceTestbed.event(tokens: [ServiceTestbed.token(3), ServiceTestbed.token(4)])
        let other = ServiceTestbed.event(tokens: [ServiceTestbed.token(5)])
        let reference = try await testbed.call("POST", "/v1/render", body: first)
        XCTAssertEqual(reference.status, 200)
        let between = try await testbed.call("POST", "/v1/render", body: other)
        XCTAssertEqual(between.status, 200)
        for _ in 0..<3 {
            let again = try await testbed.call("POST", "/v1/render", body: first)
            XCTAssertTrue(again.body == reference.body, String(decoding: again.body, as: UTF8.self))
            let otherAgain = try await testbed.call("POST", "/v1/render", body: other)
            XCTAssertTrue(otherAgain.body == between.body, String(decoding: otherAgain.body, as: UTF8.self))
        }
        // Handed back when libmicrohttpd destroys the last answer, which may
        // be after the client has read it (it was 0 here under ThreadSanitizer).
        try await waitUntil("sent answers' memory comes back") { testbed.dispatcher.answerStorage.keptCount > 0 }
    }

    func testMetricsAreExposedInPrometheusFormat() async throws {
        let testbed = try ServiceTestbed()
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [ServiceTestbed.token(1)]))
        let answer = try await testbed.call("GET", "/metrics", bearer: nil)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.contentType, "text/plain; version=0.0.4; charset=utf-8")
        let text = String(decoding: answer.body, as: UTF8.self)
        for name in ["pushgw_events_total", "pushgw_notifications_total", "pushgw_provider_request_duration_seconds",
                     "pushgw_provider_in_flight", "pushgw_rejected_tokens_total", "pushgw_token_refresh_total",
                     "pushgw_avatar_fetch_total", "pushgw_http_requests_total"] {
            XCTAssertTrue(text.contains("# TYPE \(name) "), name)
        }
        XCTAssertTrue(text.contains(#"pushgw_notifications_total{provider="apns",status="sent"} 1"#), text)
        XCTAssertTrue(text.contains(#"pushgw_http_requests_total{route="/v1/notify",code="200"} 1"#), text)
        XCTAssertFalse(text.contains(ServiceTestbed.token(1)), "never a token in a label")
    }

    /// `pushgw_provider_request_duration_seconds` times each request to the
    /// provider, a retry included: two devices, one answered 503 first, are
    /// three requests (it timed each batch: two).
    func testProviderRequestDurationCountsEveryRequestToTheProvider() async throws {
        var settings = Dispatcher.Settings()
        settings.retry.initialDelay = .milliseconds(5)
        let testbed = try ServiceTestbed(settings: settings)
        testbed.simulator.script(token: ServiceTestbed.token(1), responses: [.serviceUnavailable], thereafter: .success)
        let before = String(decoding: try await testbed.call("GET", "/metrics", bearer: nil).body, as: UTF8.self)
        XCTAssertTrue(before.contains(#"pushgw_provider_request_duration_seconds_count{provider="apns"} 0"#), before)

        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(tokens: [ServiceTestbed.token(1), ServiceTestbed.token(2)]))

        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        let after = String(decoding: try await testbed.call("GET", "/metrics", bearer: nil).body, as: UTF8.self)
        XCTAssertTrue(after.contains(#"pushgw_provider_request_duration_seconds_count{provider="apns"} 3"#), after)
        XCTAssertTrue(after.contains(#"pushgw_provider_request_duration_seconds_bucket{provider="apns",le="+Inf"} 3"#), after)
    }

    /// A configured provider's counters are there at 0 before anything
    /// happens, so a rate or an alert on them has a series from the start
    /// (the rejected-token counter had none until the first rejection).
    func testEachProvidersCountersStartAtZero() async throws {
        let testbed = try ServiceTestbed()
        let answer = try await testbed.call("GET", "/metrics", bearer: nil)
        let text = String(decoding: answer.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#"pushgw_rejected_tokens_total{provider="apns"} 0"#), text)
        XCTAssertTrue(text.contains(#"pushgw_provider_retries_total{provider="apns"} 0"#), text)
        testbed.simulator.always(token: ServiceTestbed.token(9), .unregistered(timestampMilliseconds: 1))
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "gone-1", tokens: [ServiceTestbed.token(9)]))
        let after = String(decoding: try await testbed.call("GET", "/metrics", bearer: nil).body, as: UTF8.self)
        XCTAssertTrue(after.contains(#"pushgw_rejected_tokens_total{provider="apns"} 1"#), after)
    }

    func testReadyUntilAProviderRefusesOurConfigurationAndReadyAgainOnceItAccepts() async throws {
        let testbed = try ServiceTestbed()
        let ready = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(ready.status, 200)
        let refused = ServiceTestbed.token(1)
        testbed.simulator.always(token: refused, APNsSimulatorResponse(status: 400, reason: "TopicDisallowed"))
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "ready-1", tokens: [refused]))
        let notReady = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(notReady.status, 503)
        guard case let .array(reasons)? = try JSONParser.parse(notReady.body)["reasons"], case let .string(reason)? = reasons.first
        else { return XCTFail(String(decoding: notReady.body, as: UTF8.self)) }
        XCTAssertTrue(reason.hasSuffix(" apns: TopicDisallowed"), reason)
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "ready-2", tokens: [ServiceTestbed.token(2)]))
        let again = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(again.status, 200, "a notification taken clears it")
    }

    /// THIRD_PARTY_AUTH_ERROR is the Firebase project's APNs credential:
    /// the iOS device fails for good, but FCM still serves Android, so the
    /// gateway stays ready.
    func testAThirdPartyAuthErrorFailsTheDeviceWithoutMakingFCMNotReady() async throws {
        let testbed = try ServiceTestbed()
        testbed.fcmSimulator.always(token: "ios-through-fcm", .thirdPartyAuthError)
        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(id: "third-party", tokens: [], fcmTokens: ["ios-through-fcm"]))
        XCTAssertEqual(answer.status, 502)
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail() }
        XCTAssertEqual(results[0]["status"], .string("failed"))
        XCTAssertEqual(results[0]["retryable"], .bool(false))
        XCTAssertEqual(results[0]["reason"], .string("THIRD_PARTY_AUTH_ERROR"))
        let ready = try await testbed.call("GET", "/readyz", bearer: nil)
        XCTAssertEqual(ready.status, 200, String(decoding: ready.body, as: UTF8.self))
    }

    /// A refusal without an FCM error code (the access token or an IAM
    /// permission) is reported by its RPC status, which says what to fix.
    /// The operator's log carries Google's message, which says which
    /// permission or project is wrong.
    func testAnFCMRefusalWithoutAnErrorCodeIsReportedByItsRPCStatus() async throws {
        let lines = LogCapture()
        let testbed = try ServiceTestbed(logger: Logger(minimumLevel: .warning, sink: { lines.append($0) }))
        testbed.fcmSimulator.always(token: "fcm-permission", FCMSimulatorResponse(
            status: 403, rpcStatus: "PERMISSION_DENIED", errorCode: nil, message: "The caller does not have permission"))
        let answer = try await testbed.call("POST", "/v1/notify",
                                            body: ServiceTestbed.event(id: "rpc-status", tokens: [], fcmTokens: ["fcm-permission"]))
        guard case let .array(results)? = try JSONParser.parse(answer.body)["results"] else { return XCTFail() }
        XCTAssertEqual(results[0]["reason"], .string("PERMISSION_DENIED"), String(decoding: answer.body, as: UTF8.self))
        let warning = lines.text.split(separator: "\n").first { $0.contains(#""msg":"provider refused our configuration""#) }
        XCTAssertTrue(warning?.contains(#""detail":"The caller does not have permission""#) ?? false, lines.text)
    }

    func testSkippedDevicesAreCountedOnBothPaths() async throws {
        let testbed = try ServiceTestbed()
        let tokens = [ServiceTestbed.token(1), ServiceTestbed.token(2)]
        _ = try await testbed.call("POST", "/v1/notify",
                                   body: ServiceTestbed.event(id: "skip-1", tokens: tokens, senderID: "42", userIDs: ["42", "7"]))
        _ = await testbed.dispatcher.notify(body: ServiceTestbed.event(id: "skip-2", tokens: tokens, senderID: "42", userIDs: ["42", "7"]))
        let text = String(decoding: try await testbed.call("GET", "/metrics", bearer: nil).body, as: UTF8.self)
        XCTAssertTrue(text.contains(#"pushgw_notifications_total{provider="apns",status="skipped"} 2"#), text)
        XCTAssertTrue(text.contains(#"pushgw_notifications_total{provider="apns",status="sent"} 2"#), text)
    }

    func testLogsAreJSONLinesWithTokensRedactedAndNoSecrets() async throws {
        let lines = LogCapture()
        var settings = Dispatcher.Settings()
        settings.retry.maximumAttempts = 1
        let testbed = try ServiceTestbed(settings: settings, logger: Logger(minimumLevel: .info, sink: { lines.append($0) }))
        let token = ServiceTestbed.token(77)
        testbed.simulator.always(token: token, .internalServerError)
        _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(tokens: [token]))
        let text = lines.text
        XCTAssertTrue(text.contains(#""msg":"delivery failed""#), text)
        XCTAssertTrue(text.contains(Logger.redact(token: token)))
        XCTAssertFalse(text.contains(token), "a full device token never reaches the log")
        XCTAssertFalse(text.contains(ServiceTestbed.bearer), "the API token never reaches the log")
        for line in text.split(separator: "\n") {
            XCTAssertNoThrow(try JSONParser.parse(Array(line.utf8)), String(line))
        }
    }
}

extension NotifyEndToEndTests {
    /// A provider that refuses our configuration is named in one warning
    /// with its reason, not one per event (regression: the cause of a
    /// configuration failure reached no log line at all).
    func testAConfigurationRefusalIsLoggedOnceWithItsReason() async throws {
        let lines = LogCapture()
        let testbed = try ServiceTestbed(logger: Logger(minimumLevel: .warning, sink: { lines.append($0) }))
        let token = ServiceTestbed.token(78)
        testbed.simulator.always(token: token, APNsSimulatorResponse(status: 400, reason: "TopicDisallowed"))
        for index in 0..<3 {
            _ = try await testbed.call("POST", "/v1/notify", body: ServiceTestbed.event(id: "conf-\(index)", tokens: [token]))
        }
        let warnings = lines.text.split(separator: "\n").filter { $0.contains(#""msg":"provider refused our configuration""#) }
        XCTAssertEqual(warnings.count, 1, lines.text)
        XCTAssertTrue(warnings.first?.contains(#""reason":"TopicDisallowed""#) ?? false, lines.text)
        XCTAssertTrue(warnings.first?.contains(#""status":"400""#) ?? false, lines.text)
    }
}

/// Collects log lines written by the logger's sink.
final class LogCapture: Sendable {
    private let lines = Locked<[UInt8]>([])

    func append(_ line: [UInt8]) {
        lines.withLock { $0 += line }
    }

    var text: String { lines.withLock { String(decoding: $0, as: UTF8.self) } }
}
