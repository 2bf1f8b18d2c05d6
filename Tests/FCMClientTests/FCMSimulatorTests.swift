import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
@testable import OpenSSLCrypto
import FCMClient
import Foundation
import XCTest

/// The FCM simulator is strict like Google: what it refuses, with which
/// status, FcmError code and field violation, over real HTTP/2 + TLS.
final class FCMSimulatorTests: XCTestCase {
    private let token = FCMTestbed.token(1)

    private func message(_ extra: String = "", token: String? = nil) -> String {
        #"{"token":"\#(token ?? self.token)","notification":{"title":"Hi","body":"There"}\#(extra)}"#
    }

    func testAValidMessageIsAcceptedWithAProjectScopedName() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let response = try await probe.send(message: message(#","data":{"k":"v"},"android":{"priority":"high","ttl":"3.5s"}"#))
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as! [String: Any]
        let name = try XCTUnwrap(object["name"] as? String)
        XCTAssertTrue(name.hasPrefix("projects/\(FCMTestbed.projectID)/messages/0:"), name)
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.acceptedTotal, 1)
        XCTAssertEqual(statistics.acceptedPerToken[token], 1)
        XCTAssertEqual(statistics.acceptedNames, [name])
        XCTAssertEqual(statistics.messages.first?.token, token)
    }

    func testReservedDataKeysAreRefusedCaseInsensitively() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        for key in ["from", "message_type", "google.c.a.e", "gcm.notification.x", "GCM_X", "Google", "FROM"] {
            let response = try await probe.send(message: message(#","data":{"ok":"1","\#(key)":"x"}"#))
            XCTAssertEqual(response.status, 400, key)
            let error = try GoogleErrorBody(response)
            XCTAssertEqual(error.status, "INVALID_ARGUMENT")
            XCTAssertEqual(error.fcmErrorCode, "INVALID_ARGUMENT")
            XCTAssertEqual(error.message, "Invalid data payload key: \(key)")
            XCTAssertEqual(error.violations.first?.field, "message.data")
        }
        let android = try await probe.send(message: message(#","android":{"data":{"from":"x"}}"#))
        XCTAssertEqual(try GoogleErrorBody(android).violations.first?.field, "message.android.data")
        let allowed = try await probe.send(message: message(#","data":{"fromage":"x","collapse_key":"c","notification":"n"}"#))
        XCTAssertEqual(allowed.status, 200, "only the reserved names and prefixes are refused")
        XCTAssertEqual(testbed.simulator.statistics.rejectedPerErrorCode["INVALID_ARGUMENT"], 8)
    }

    func testUnknownFieldsAreRefusedWithAFieldViolationNamingThem() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let cases: [(String, String, String?)] = [
            (message(#","badge":3"#), "badge", "message"),
            (#"{"token":"\#(token)","notification":{"title":"t","sound":"default"}}"#, "sound", "message.notification"),
            (message(#","android":{"priority":"high","badge":1}"#), "badge", "message.android"),
            (message(#","android":{"notification":{"subtitle":"x"}}"#), "subtitle", "message.android.notification"),
            (message(#","apns":{"payload":{"aps":{}},"topic":"x"}"#), "topic", "message.apns"),
        ]
        for (body, name, field) in cases {
            let response = try await probe.send(message: body)
            XCTAssertEqual(response.status, 400, body)
            let error = try GoogleErrorBody(response)
            XCTAssertEqual(error.status, "INVALID_ARGUMENT")
            XCTAssertNil(error.fcmErrorCode, "Google's JSON layer refuses these before FCM: no FcmError detail")
            XCTAssertEqual(error.violations.count, 1)
            XCTAssertEqual(error.violations.first?.field, field)
            XCTAssertEqual(error.violations.first?.description,
                           "Invalid JSON payload received. Unknown name \"\(name)\" at '\(field!)': Cannot find field.")
            XCTAssertEqual(error.message, error.violations.first?.description)
        }
        let topLevel = try await probe.post(#"{"message":\#(message()),"dry_run":true}"#)
        let error = try GoogleErrorBody(topLevel)
        XCTAssertNil(error.violations.first?.field)
        XCTAssertEqual(error.message, #"Invalid JSON payload received. Unknown name "dry_run": Cannot find field."#)
    }

    func testBothProtoSpellingsOfAFieldAreAccepted() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        for android in [#"{"collapse_key":"c","restricted_package_name":"p"}"#, #"{"collapseKey":"c","restrictedPackageName":"p"}"#] {
            let response = try await probe.send(message: message(#","android":\#(android),"fcm_options":{"analytics_label":"a"}"#))
            XCTAssertEqual(response.status, 200, android)
        }
        let validateOnly = try await probe.post(#"{"message":\#(message()),"validateOnly":true}"#)
        XCTAssertEqual(validateOnly.status, 200)
    }

    func testNonStringDataValuesAreRefusedAtTheirMapPosition() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let response = try await probe.send(message: message(#","data":{"a":"1","b":2,"c":"3","d":{"x":1}}"#))
        XCTAssertEqual(response.status, 400)
        let error = try GoogleErrorBody(response)
        XCTAssertNil(error.fcmErrorCode)
        XCTAssertEqual(error.violations.map(\.field), ["message.data[1].value", "message.data[3].value"])
        XCTAssertEqual(error.violations.first?.description, "Invalid value at 'message.data[1].value' (TYPE_STRING), 2")
        XCTAssertEqual(error.message, error.violations.map(\.description).joined(separator: "\n"))
        let title = try await probe.send(message: #"{"token":"\#(token)","notification":{"title":5}}"#)
        XCTAssertEqual(try GoogleErrorBody(title).violations.first?.description,
                       "Invalid value at 'message.notification.title' (TYPE_STRING), 5")
    }

    func testAMessageOverFourKilobytesOfDataAndNotificationIsTooBig() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        // title 2 + body 5 + key 1 = 8 bytes beside the value.
        let fits = try await probe.send(message: message(#","data":{"k":"\#(String(repeating: "x", count: 4096 - 8))"}"#))
        XCTAssertEqual(fits.status, 200)
        let response = try await probe.send(message: message(#","data":{"k":"\#(String(repeating: "x", count: 4096 - 7))"}"#))
        XCTAssertEqual(response.status, 400)
        let error = try GoogleErrorBody(response)
        XCTAssertEqual(error.fcmErrorCode, "INVALID_ARGUMENT")
        XCTAssertEqual(error.message, "Message is too big")
        let topic = try await probe.send(message: #"{"topic":"news","data":{"k":"\#(String(repeating: "x", count: 2100))"}}"#)
        XCTAssertEqual(try GoogleErrorBody(topic).message, "Message is too big", "topic messages: 2048 bytes")
    }

    func testExactlyOneTargetAndAWellFormedTokenAreRequired() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        for body in [#"{"notification":{"title":"t"}}"#, #"{"token":"\#(token)","topic":"news"}"#, #"{"token":""}"#] {
            let response = try await probe.send(message: body)
            XCTAssertEqual(response.status, 400, body)
            XCTAssertEqual(try GoogleErrorBody(response).fcmErrorCode, "INVALID_ARGUMENT", body)
        }
        let badToken = try await probe.send(message: message(token: "not a token!"))
        let error = try GoogleErrorBody(badToken)
        XCTAssertEqual(error.fcmErrorCode, "INVALID_ARGUMENT")
        XCTAssertEqual(error.message, "The registration token is not a valid FCM registration token")
        let topic = try await probe.send(message: #"{"topic":"news-1","data":{"a":"b"}}"#)
        XCTAssertEqual(topic.status, 200)
        let prefixed = try await probe.send(message: #"{"topic":"/topics/news-1","data":{"a":"b"}}"#)
        XCTAssertEqual(try GoogleErrorBody(prefixed).violations.first?.field, "message.topic", "only the SDKs strip /topics/")
        let condition = try await probe.send(message: #"{"condition":"'a' in topics","data":{"a":"b"}}"#)
        XCTAssertEqual(condition.status, 200)
    }

    func testAndroidPriorityTTLAndTheAPNsPayloadAreChecked() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        for priority in ["high", "HIGH", "normal", "NORMAL"] {
            let response = try await probe.send(message: message(#","android":{"priority":"\#(priority)"}"#))
            XCTAssertEqual(response.status, 200, priority)
        }
        let urgent = try await probe.send(message: message(#","android":{"priority":"urgent"}"#))
        XCTAssertEqual(try GoogleErrorBody(urgent).violations.first?.field, "message.android.priority")
        for ttl in ["86400s", "0s", "3.000000001s"] {
            let response = try await probe.send(message: message(#","android":{"ttl":"\#(ttl)"}"#))
            XCTAssertEqual(response.status, 200, ttl)
        }
        for ttl in [#""1 day""#, #""86400""#, "86400", #""1.0000000001s""#] {
            let response = try await probe.send(message: message(#","android":{"ttl":\#(ttl)}"#))
            XCTAssertEqual(try GoogleErrorBody(response).violations.first?.field, "message.android.ttl", ttl)
        }
        let negative = try await probe.send(message: message(#","android":{"ttl":"-1s"}"#))
        XCTAssertEqual(try GoogleErrorBody(negative).fcmErrorCode, "INVALID_ARGUMENT")
        let noAPS = try await probe.send(message: message(#","apns":{"payload":{"custom":1}}"#))
        XCTAssertEqual(try GoogleErrorBody(noAPS).violations.first?.field, "message.apns.payload")
        let notObject = try await probe.send(message: message(#","apns":{"payload":"aps"}"#))
        XCTAssertEqual(try GoogleErrorBody(notObject).violations.first?.description,
                       #"Invalid value at 'message.apns.payload' (type.googleapis.com/google.protobuf.Struct), "aps""#)
        let headers = try await probe.send(message: message(#","apns":{"headers":{"apns-priority":10},"payload":{"aps":{}}}"#))
        XCTAssertEqual(try GoogleErrorBody(headers).violations.first?.field, "message.apns.headers[0].value")
    }

    func testAuthenticationAndProjectAreCheckedFirstWithoutAnFcmErrorDetail() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        for authorization in [nil, "Bearer ya29.unknown", "Basic abc", "Bearer"] as [String?] {
            let response = try await probe.post(#"{"message":\#(message())}"#, authorization: .some(authorization))
            XCTAssertEqual(response.status, 401, "\(authorization ?? "none")")
            XCTAssertEqual(response.header("www-authenticate"), #"Bearer realm="https://accounts.google.com/""#)
            let error = try GoogleErrorBody(response)
            XCTAssertEqual(error.status, "UNAUTHENTICATED")
            XCTAssertNil(error.fcmErrorCode)
            XCTAssertTrue(error.detailTypes.isEmpty)
        }
        let otherProject = try await probe.post(#"{"message":\#(message())}"#, path: "/v1/projects/someone-else/messages:send")
        XCTAssertEqual(otherProject.status, 403)
        let error = try GoogleErrorBody(otherProject)
        XCTAssertEqual(error.status, "PERMISSION_DENIED")
        XCTAssertNil(error.fcmErrorCode)
        let unknownPath = try await probe.post("{}", path: "/v1/projects/\(FCMTestbed.projectID)/messages:batchSend")
        XCTAssertEqual(unknownPath.status, 404)
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.rejectedPerErrorCode["UNAUTHENTICATED"], 4)
        XCTAssertEqual(statistics.rejectedPerErrorCode["PERMISSION_DENIED"], 1)
        XCTAssertEqual(statistics.acceptedTotal, 0)
    }

    func testAnExpiredAccessTokenIsRefusedAfterItsLifetime() async throws {
        let testbed = try FCMTestbed(sharedClock: true)
        testbed.simulator.setAccessTokenLifetime(60)
        let probe = try await FCMSimulatorProbe(testbed)
        let fresh = try await probe.send(message: message())
        XCTAssertEqual(fresh.status, 200)
        testbed.clock.advance(by: .seconds(61))
        let expired = try await probe.send(message: message())
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(try GoogleErrorBody(expired).status, "UNAUTHENTICATED")
    }

    func testValidateOnlyIsADryRunWithGooglesFakeName() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let response = try await probe.post(#"{"message":\#(message()),"validate_only":true}"#)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self),
                       #"{"name":"projects/\#(FCMTestbed.projectID)/messages/fake_message_id"}"#)
        XCTAssertEqual(testbed.simulator.statistics.acceptedTotal, 0)
        XCTAssertEqual(testbed.simulator.statistics.validatedOnly, 1)
    }

    func testScriptedErrorsAreWrittenInGooglesShapeThenSuccessResumes() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        testbed.simulator.script(token: token, responses: [.quotaExceeded(retryAfter: 30), .unregistered])
        let quota = try await probe.send(message: message())
        XCTAssertEqual(quota.status, 429)
        XCTAssertEqual(quota.header("retry-after"), "30")
        let quotaError = try GoogleErrorBody(quota)
        XCTAssertEqual(quotaError.status, "RESOURCE_EXHAUSTED")
        XCTAssertEqual(quotaError.fcmErrorCode, "QUOTA_EXCEEDED")
        XCTAssertEqual(quotaError.detailTypes.first, "type.googleapis.com/google.firebase.fcm.v1.FcmError")
        let unregistered = try await probe.send(message: message())
        XCTAssertEqual(unregistered.status, 404)
        XCTAssertEqual(try GoogleErrorBody(unregistered).fcmErrorCode, "UNREGISTERED")
        let accepted = try await probe.send(message: message())
        XCTAssertEqual(accepted.status, 200)
        let invalid = try await probe.send(message: message(#","data":{"from":"x"}"#))
        XCTAssertEqual(invalid.status, 400, "validation comes before the script")
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.rejectedPerErrorCode, ["QUOTA_EXCEEDED": 1, "UNREGISTERED": 1, "INVALID_ARGUMENT": 1])
        XCTAssertEqual(statistics.acceptedPerToken[token], 1)
    }

    func testTheTokenEndpointRefusesBadAssertionsAsGoogleDoes() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let account = testbed.serviceAccount
        let now = testbed.clock.epochSeconds
        func form(_ assertion: String, grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer") -> String {
            "grant_type=" + grantType.replacingOccurrences(of: ":", with: "%3A") + "&assertion=" + assertion
        }
        func oauthError(_ response: HTTP2Response) throws -> (String, String) {
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as! [String: String]
            return (object["error"] ?? "", object["error_description"] ?? "")
        }
        // A different key under the same email and key id: the signature does not verify.
        let impostor = try ThrowawayServiceAccount(projectID: FCMTestbed.projectID,
                                                   clientEmail: account.clientEmail, privateKeyID: account.privateKeyID)
        let impostorAccount = try ServiceAccount(json: impostor.json(tokenURI: testbed.simulator.tokenURI))
        let otherAudience = try ServiceAccount(json: testbed.account.json(tokenURI: "https://oauth2.googleapis.com/token"))
        let cases: [(String, Int, String, String)] = [
            (form(try impostorAccount.assertion(issuedAt: now)), 400, "invalid_grant", "Invalid JWT Signature."),
            (form(try account.assertion(scope: "https://www.googleapis.com/auth/userinfo.email", issuedAt: now)),
             400, "invalid_scope", "Invalid OAuth scope or ID token audience provided."),
            (form(try account.assertion(issuedAt: now - 7200)), 400, "invalid_grant",
             "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."),
            (form(try otherAudience.assertion(issuedAt: now)), 400, "invalid_grant",
             "Invalid JWT: Failed audience check. The right audience is \(testbed.simulator.tokenURI)"),
            (form(try account.assertion(issuedAt: now), grantType: "client_credentials"), 400, "unsupported_grant_type",
             "Invalid grant_type: client_credentials"),
            ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", 400, "invalid_request",
             "Missing required parameter: assertion"),
        ]
        for (body, status, code, description) in cases {
            let response = try await probe.grant(form: body)
            XCTAssertEqual(response.status, status, description)
            let (error, text) = try oauthError(response)
            XCTAssertEqual(error, code)
            XCTAssertEqual(text, description)
        }
        let unknown = try ThrowawayServiceAccount(projectID: FCMTestbed.projectID, clientEmail: "nobody@example.iam.gserviceaccount.com")
        let unknownAccount = try ServiceAccount(json: unknown.json(tokenURI: testbed.simulator.tokenURI))
        let response = try await probe.grant(form: form(try unknownAccount.assertion(issuedAt: now)))
        XCTAssertEqual(try oauthError(response).1, "Invalid grant: account not found")
        let statistics = testbed.simulator.statistics
        XCTAssertEqual(statistics.grantsIssued, 1, "only the probe's own grant")
        XCTAssertEqual(statistics.grantsRefused["invalid_grant"], 4)
    }

    /// The assertion's `kid` must be the account's `private_key_id` byte
    /// for byte: U+212A KELVIN SIGN is not `K`.
    func testTheAssertionKeyIDIsComparedAsBytes() async throws {
        let keyed = try ThrowawayServiceAccount(projectID: FCMTestbed.projectID, clientEmail: "keyed@example.iam.gserviceaccount.com",
                                                privateKeyID: "KEYID0000001")
        let testbed = try FCMTestbed { $0.serviceAccounts.append(keyed.registration) }
        let probe = try await FCMSimulatorProbe(testbed)
        let json = keyed.json(tokenURI: testbed.simulator.tokenURI)
        let kelvin = try ServiceAccount(json: json.replacingOccurrences(of: "KEYID0000001", with: "\u{212A}EYID0000001"))
        let exact = try ServiceAccount(json: json)
        func form(_ account: ServiceAccount) throws -> String {
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try account.assertion(issuedAt: testbed.clock.epochSeconds))
        }
        let accepted = try await probe.grant(form: form(exact))
        XCTAssertEqual(accepted.status, 200)
        let refused = try await probe.grant(form: form(kelvin))
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("Invalid JWT Signature."))
    }

    func testABodyNotSentAsApplicationJSONIsRefused() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let body = #"{"message":\#(message())}"#
        for contentType in ["text/plain", "application/x-www-form-urlencoded"] {
            let response = try await probe.post(body, contentType: contentType)
            XCTAssertEqual(response.status, 400, contentType)
            let error = try GoogleErrorBody(response)
            XCTAssertEqual(error.status, "INVALID_ARGUMENT")
            XCTAssertNil(error.fcmErrorCode, "raised before FCM sees the message")
        }
        let charset = try await probe.post(body, contentType: "application/json; charset=UTF-8")
        XCTAssertEqual(charset.status, 200)
    }

    /// An expired assertion is never exchanged; a future `iat` only within
    /// the allowed skew (60 s by default, configurable).
    func testAnExpiredOrFutureDatedAssertionIsRefused() async throws {
        let testbed = try FCMTestbed()
        let probe = try await FCMSimulatorProbe(testbed)
        let now = testbed.clock.epochSeconds
        func status(issuedAt: Int64, lifetime: Int64 = 3600, on probe: FCMSimulatorProbe) async throws -> Int {
            let assertion = try probe.testbed.serviceAccount.assertion(issuedAt: issuedAt, lifetime: lifetime)
            return try await probe.grant(form: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion).status
        }
        let expired = try await status(issuedAt: now - 3800, on: probe)
        XCTAssertEqual(expired, 400, "exp 200 s ago")
        let justExpired = try await status(issuedAt: now - 61, lifetime: 60, on: probe)
        XCTAssertEqual(justExpired, 400, "exp 1 s ago")
        let ahead = try await status(issuedAt: now + 250, on: probe)
        XCTAssertEqual(ahead, 400, "iat 250 s ahead")
        let slightlyAhead = try await status(issuedAt: now + 30, on: probe)
        XCTAssertEqual(slightlyAhead, 200, "iat 30 s ahead, within the skew")

        let lenient = try FCMTestbed { $0.allowedClockSkew = 300 }
        let lenientProbe = try await FCMSimulatorProbe(lenient)
        let aheadAllowed = try await status(issuedAt: lenient.clock.epochSeconds + 250, on: lenientProbe)
        XCTAssertEqual(aheadAllowed, 200, "the skew is configurable")
    }

    func testTheSimulatorRefusesAServiceAccountWithoutAnRSAKey() throws {
        let ecKey = try ES256SigningKey.generate()
        let account = FCMSimulatorServiceAccount(clientEmail: "x@y", privateKeyID: "k", publicKeyPEM: ecKey.publicKeyPEM)
        XCTAssertThrowsError(try FCMSimulator(configuration: FCMSimulatorConfiguration(projectID: "p", serviceAccounts: [account])))
    }
}
