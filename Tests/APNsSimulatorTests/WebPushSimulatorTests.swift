import APNsSimulator
import Foundation
import XCTest
import TestSupport

/// The web push simulator end to end: messages encrypted by `http_ece` and
/// authorized by `py_vapid` / `cryptography` (WebPushReference), sent by the
/// in-test nghttp2 client, decrypted by the simulator to what was meant;
/// and every refusal with the status and reason it documents.
final class WebPushSimulatorTests: XCTestCase {
    func testAMessageFromHTTPECEAndPyVapidIsDecryptedToWhatWasMeantAndAnswered201() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let payload = #"{"title":"Grüße aus Köln","body":"Bis gleich 👋","conversation":"c-42"}"#
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: [payload]))
        let authorization = try XCTUnwrap(reference.py_vapid_authorization)
        XCTAssertTrue(authorization.hasPrefix("vapid t="), authorization)

        let client = try fixture.client()
        let response = client.send(fixture.request(subscription, body: reference.bodyBytes[0], authorization: authorization,
                                                   headers: ["urgency": "high", "topic": "c-42", "ttl": "3600"]))
        XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
        let location = try XCTUnwrap(response.header("location"))
        XCTAssertTrue(location.hasPrefix(fixture.simulator.url + "/message/"), location)
        XCTAssertEqual(response.header("ttl"), "3600")

        let messages = fixture.simulator.messages(for: subscription.id)
        XCTAssertEqual(messages.count, 1)
        let message = try XCTUnwrap(messages.first)
        XCTAssertEqual(message.text, payload)
        XCTAssertEqual(message.ttl, 3600)
        XCTAssertEqual(message.urgency, "high")
        XCTAssertEqual(message.topic, "c-42")
        XCTAssertEqual(message.vapidSubject, WebPushTestFixture.contact)
        XCTAssertEqual(message.vapidPublicKey, reference.vapid_public_key)
        XCTAssertEqual(message.bodySize, reference.bodyBytes[0].count)
        XCTAssertEqual(message.arrival, Double(fixture.now))
        XCTAssertEqual(location, fixture.simulator.url + "/message/" + message.messageID)
        XCTAssertEqual(fixture.simulator.statistics.acceptedPerSubscription, [subscription.id: 1])
    }

    /// Without recording (the demo, the benchmarks), the counts are kept.
    func testCountsAreKeptWhenMessagesAreNotRecorded() throws {
        let fixture = try WebPushTestFixture { $0.recordsMessages = false }
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["{}"]))
        let response = try fixture.client().send(fixture.request(subscription, body: reference.bodyBytes[0],
                                                                 authorization: try XCTUnwrap(reference.py_vapid_authorization)))
        XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).count, 0)
        XCTAssertEqual(fixture.simulator.statistics.acceptedPerSubscription, [subscription.id: 1])
    }

    /// Concurrent streams on one connection, to two subscriptions, each
    /// decrypted with its own keys; one VAPID token serves them all.
    func testConcurrentStreamsToTwoSubscriptionsAreEachDecryptedWithTheirOwnKeys() throws {
        let fixture = try WebPushTestFixture()
        let first = try fixture.simulator.makeSubscription()
        let second = try fixture.simulator.makeSubscription()
        let texts = (0..<8).map { "message \($0)" }
        let toFirst = try WebPushReference.run(fixture.referenceRequest(for: first, plaintexts: texts))
        let toSecond = try WebPushReference.run(fixture.referenceRequest(for: second, plaintexts: texts))
        let authorization = try XCTUnwrap(toFirst.py_vapid_authorization)
        let requests = zip(toFirst.bodyBytes, toSecond.bodyBytes).flatMap { one, other in
            [fixture.request(first, body: one, authorization: authorization),
             fixture.request(second, body: other, authorization: authorization)]
        }
        let client = try fixture.client()
        XCTAssertEqual(client.send(requests).map(\.status), Array(repeating: 201, count: 16))
        XCTAssertEqual(fixture.simulator.messages(for: first.id).map(\.text).sorted(), texts)
        XCTAssertEqual(fixture.simulator.messages(for: second.id).map(\.text).sorted(), texts)
        XCTAssertEqual(Set(fixture.simulator.statistics.messages.map(\.messageID)).count, 16, "every message has its own id")
    }

    /// RFC 8291 §5's example message, made with the Appendix A keys, is
    /// decrypted with the appendix's receiver keys; the receiver's public
    /// key the simulator derives from the private one is the appendix's.
    func testTheRFC8291ExampleMessageDecryptsWithTheAppendixReceiverKeys() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.addSubscription(
            privateKey: webPushDecode(RFC8291Example.receiverPrivateKey), authSecret: webPushDecode(RFC8291Example.authSecret))
        XCTAssertEqual(subscription.p256dh, RFC8291Example.receiverPublicKey)
        XCTAssertEqual(subscription.auth, RFC8291Example.authSecret)

        let key = try SimTestKey()
        let claims = #"{"aud":"\#(fixture.simulator.url)","exp":\#(fixture.now + 3600),"sub":"mailto:ops@example.com"}"#
        let authorization = "vapid t=\(key.vapidJWT(claims: claims)), k=\(key.vapidPublicKey)"
        let client = try fixture.client()
        let response = client.send(fixture.request(subscription, body: webPushDecode(RFC8291Example.message), authorization: authorization))
        XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.text), [RFC8291Example.plaintext])
    }

    func testBadVAPIDAuthorizationsAreRefused401WithTheirReason() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let otherOrigin = "https://127.0.0.1:\(fixture.simulator.port == 443 ? 444 : 443)"
        let tokens: [[String: Any]] = [
            fixture.claims(),  // valid: the control
            fixture.claims(audience: otherOrigin),
            fixture.claims(audience: fixture.simulator.url + "/"),
            fixture.claims(expiresIn: -1),
            fixture.claims(expiresIn: 86_400 + 60),
            fixture.claims(subject: nil),
            fixture.claims(subject: "ops@example.com"),
            fixture.claims(subject: "http://example.com"),
        ]
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["hello"], tokens: tokens))
        let body = reference.bodyBytes[0]
        let k = reference.vapid_public_key
        let valid = reference.tokens[0]
        let other = try SimTestKey()
        let tamperedSignature = String(valid.dropLast()) + (valid.hasSuffix("A") ? "Q" : "A")
        let cases: [(String?, String)] = [
            (nil, "MissingAuthorization"),
            ("vapid t=\(reference.tokens[1]), k=\(k)", "BadJWTAudience"),
            ("vapid t=\(reference.tokens[2]), k=\(k)", "BadJWTAudience"),
            ("vapid t=\(reference.tokens[3]), k=\(k)", "ExpiredJWT"),
            ("vapid t=\(reference.tokens[4]), k=\(k)", "JWTExpiryTooFar"),
            ("vapid t=\(reference.tokens[5]), k=\(k)", "BadJWTSubject"),
            ("vapid t=\(reference.tokens[6]), k=\(k)", "BadJWTSubject"),
            ("vapid t=\(reference.tokens[7]), k=\(k)", "BadJWTSubject"),
            ("vapid t=\(tamperedSignature), k=\(k)", "BadJWTSignature"),
            ("vapid t=\(valid), k=\(other.vapidPublicKey)", "BadJWTSignature"),
            ("vapid t=\(valid), k=AAAA", "BadVAPIDKey"),
            ("vapid t=\(valid)", "BadAuthorizationHeader"),
            ("vapid t=\(valid), k=\(k), t=\(valid)", "BadAuthorizationHeader"),
            ("WebPush \(valid)", "BadAuthorizationScheme"),
            ("bearer \(valid)", "BadAuthorizationScheme"),
            ("vapid t=\(valid.split(separator: ".").prefix(2).joined(separator: ".")), k=\(k)", "BadJWT"),
        ]
        let client = try fixture.client()
        for (authorization, reason) in cases {
            let response = client.send(fixture.request(subscription, body: body, authorization: authorization))
            XCTAssertEqual(response.status, 401, "\(reason): \(authorization ?? "none")")
            XCTAssertEqual(response.reason, reason, authorization ?? "none")
            XCTAssertEqual(response.json?["code"] as? Int, 401)
        }
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 0)
        XCTAssertEqual(fixture.simulator.statistics.rejectedTotal, cases.count)

        // The control, both in py_vapid's spelling and with the space RFC 8292 shows.
        for authorization in ["vapid t=\(valid),k=\(k)", "vapid t=\(valid), k=\(k)", "VAPID k=\(k), t=\(valid)"] {
            XCTAssertEqual(client.send(fixture.request(subscription, body: body, authorization: authorization)).status, 201,
                           authorization)
        }
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.text), ["hello", "hello", "hello"])
    }

    /// A token in use is not verified again, but its expiry still counts.
    func testAReusedTokenIsRefusedOnceItsExpiryPasses() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(
            for: subscription, plaintexts: ["x"], tokens: [fixture.claims(expiresIn: 600)]))
        let authorization = "vapid t=\(reference.tokens[0]), k=\(reference.vapid_public_key)"
        let client = try fixture.client()
        let request = fixture.request(subscription, body: reference.bodyBytes[0], authorization: authorization)
        XCTAssertEqual(client.send(request).status, 201)
        XCTAssertEqual(client.send(request).status, 201)
        fixture.clock.advance(by: .seconds(600))
        let expired = client.send(request)
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.reason, "ExpiredJWT")
    }

    func testTheRFC8030HeadersAreCheckedStrictly() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["hi"]))
        let authorization = try XCTUnwrap(reference.py_vapid_authorization)
        let body = reference.bodyBytes[0]
        let refused: [([String: String?], String)] = [
            (["ttl": nil], "MissingTTL"),
            (["ttl": "-1"], "BadTTL"),
            (["ttl": "1.5"], "BadTTL"),
            (["ttl": "+60"], "BadTTL"),
            (["ttl": "0x10"], "BadTTL"),
            (["ttl": ""], "BadTTL"),
            (["ttl": "12345678901"], "BadTTL"),
            (["urgency": "urgent"], "BadUrgency"),
            (["urgency": "High"], "BadUrgency"),
            (["topic": String(repeating: "a", count: 33)], "BadTopic"),
            (["topic": "has space"], "BadTopic"),
            (["topic": "a+b"], "BadTopic"),
            (["topic": ""], "BadTopic"),
            (["content-encoding": "aesgcm"], "BadContentEncoding"),
            (["content-encoding": nil], "BadContentEncoding"),
        ]
        let client = try fixture.client()
        for (headers, reason) in refused {
            let response = client.send(fixture.request(subscription, body: body, authorization: authorization, headers: headers))
            XCTAssertEqual(response.status, 400, "\(headers)")
            XCTAssertEqual(response.reason, reason, "\(headers)")
        }
        let accepted: [[String: String?]] = [
            ["ttl": "0", "urgency": "very-low"],
            ["urgency": "low", "topic": String(repeating: "Zz-_9", count: 6) + "ab"],
            ["urgency": "normal", "content-encoding": "AES128GCM"],
        ]
        for headers in accepted {
            let response = client.send(fixture.request(subscription, body: body, authorization: authorization, headers: headers))
            XCTAssertEqual(response.status, 201, "\(headers): \(String(decoding: response.body, as: UTF8.self))")
        }
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.ttl), [0, 60, 60])
    }

    func testTamperedForeignMultiRecordAndOversizedBodiesAreRefused() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let stranger = try fixture.simulator.makeSubscription()
        let largest = String(repeating: "w", count: 4096 - 86 - 17)
        let reference = try WebPushReference.run(fixture.referenceRequest(
            for: subscription, plaintexts: ["meant for one", largest, String(repeating: "m", count: 40)]))
        let forStranger = try WebPushReference.run(fixture.referenceRequest(for: stranger, plaintexts: ["meant for another"]))
        let multiRecord = try WebPushReference.run(fixture.referenceRequest(
            for: subscription, plaintexts: [String(repeating: "m", count: 40)], recordSize: 30))
        let authorization = try XCTUnwrap(reference.py_vapid_authorization)
        let body = reference.bodyBytes[0]
        XCTAssertEqual(reference.bodyBytes[1].count, 4096)

        var tampered = body
        tampered[tampered.count - 1] ^= 0x01
        var tamperedCiphertext = body
        tamperedCiphertext[86] ^= 0x80
        var badKeyID = body
        badKeyID[40] ^= 0x01
        var shortRecordSize = body
        shortRecordSize[16...19] = [0, 0, 0, 17]
        let refused: [([UInt8], Int, String)] = [
            (tampered, 400, "DecryptionFailed"),
            (tamperedCiphertext, 400, "DecryptionFailed"),
            (badKeyID, 400, "DecryptionFailed"),
            (shortRecordSize, 400, "DecryptionFailed"),
            (Array(body.prefix(60)), 400, "DecryptionFailed"),
            (forStranger.bodyBytes[0], 400, "DecryptionFailed"),
            (multiRecord.bodyBytes[0], 400, "DecryptionFailed"),
            (reference.bodyBytes[1] + [0], 413, "PayloadTooLarge"),
        ]
        let client = try fixture.client()
        for (index, (bytes, status, reason)) in refused.enumerated() {
            let response = client.send(fixture.request(subscription, body: bytes, authorization: authorization))
            XCTAssertEqual(response.status, status, "case \(index)")
            XCTAssertEqual(response.reason, reason, "case \(index)")
        }
        let multi = client.send(fixture.request(subscription, body: multiRecord.bodyBytes[0], authorization: authorization))
        XCTAssertTrue((multi.json?["message"] as? String)?.contains("one record") == true, "\(multi.json ?? [:])")

        for bytes in [body, reference.bodyBytes[1]] {
            XCTAssertEqual(client.send(fixture.request(subscription, body: bytes, authorization: authorization)).status, 201)
        }
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.text), ["meant for one", largest])
        XCTAssertTrue(fixture.simulator.messages(for: stranger.id).isEmpty)
    }

    func testScriptedFaultsAnswerAsScriptedThenTheMessageIsAccepted() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["again"]))
        let request = fixture.request(subscription, body: reference.bodyBytes[0],
                                      authorization: try XCTUnwrap(reference.py_vapid_authorization))
        fixture.simulator.script(subscription.id, responses: [
            .tooManyRequests(retryAfter: 30), .serviceUnavailable(retryAfter: 5), .internalServerError,
            .payloadTooLarge, .notFound, .gone,
        ])
        let client = try fixture.client()
        let answers = (0..<7).map { _ in client.send(request) }
        XCTAssertEqual(answers.map(\.status), [429, 503, 500, 413, 404, 410, 201])
        XCTAssertEqual(answers.map { $0.header("retry-after") }, ["30", "5", nil, nil, nil, nil, nil])
        XCTAssertEqual(answers.prefix(6).map(\.reason),
                       ["TooManyRequests", "ServiceUnavailable", "InternalServerError", "PayloadTooLarge", "NotFound", "Gone"])
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).count, 1)

        fixture.simulator.always(subscription.id, .gone)
        XCTAssertEqual(client.send(request).status, 410)
        XCTAssertEqual(client.send(request).status, 410)
        fixture.simulator.clearScript()
        XCTAssertEqual(client.send(request).status, 201)
        XCTAssertEqual(fixture.simulator.statistics.rejectedPerReason["Gone"], 3)
    }

    func testUnsubscribedIs410UnknownIs404AndOnlyPostIsServed() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["bye"]))
        let request = fixture.request(subscription, body: reference.bodyBytes[0],
                                      authorization: try XCTUnwrap(reference.py_vapid_authorization))
        let client = try fixture.client()
        XCTAssertEqual(client.send(request).status, 201)

        var unknown = request
        unknown.path = "/push/not-a-subscription"
        XCTAssertEqual(client.send(unknown).status, 404)
        var elsewhere = request
        elsewhere.path = "/v1/push"
        XCTAssertEqual(client.send(elsewhere).status, 404)
        var get = request
        get.method = "GET"
        get.body = []
        XCTAssertEqual(client.send(get).status, 405)

        XCTAssertTrue(fixture.simulator.unsubscribe(subscription.id))
        XCTAssertFalse(fixture.simulator.unsubscribe("not-a-subscription"))
        let gone = client.send(request)
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.reason, "Gone")
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).count, 1)
    }

    /// A subscription made with an applicationServerKey takes only that key.
    func testASubscriptionBoundToAnApplicationServerKeyRefusesOtherKeys403() throws {
        let fixture = try WebPushTestFixture()
        let key = try SimTestKey()
        let subscription = try fixture.simulator.makeSubscription(applicationServerKey: key.vapidPublicKey)
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["bound"]))
        let client = try fixture.client()

        let foreign = client.send(fixture.request(subscription, body: reference.bodyBytes[0],
                                                  authorization: try XCTUnwrap(reference.py_vapid_authorization)))
        XCTAssertEqual(foreign.status, 403)
        XCTAssertEqual(foreign.reason, "VAPIDKeyMismatch")

        let claims = #"{"aud":"\#(fixture.simulator.url)","exp":\#(fixture.now + 3600),"sub":"https://chat.example.com/contact"}"#
        let own = client.send(fixture.request(subscription, body: reference.bodyBytes[0],
                                              authorization: "vapid t=\(key.vapidJWT(claims: claims)), k=\(key.vapidPublicKey)"))
        XCTAssertEqual(own.status, 201, String(decoding: own.body, as: UTF8.self))
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.vapidSubject), ["https://chat.example.com/contact"])
    }

    /// The server core's connection faults apply as for APNs and FCM.
    func testGoAwayAfterOneStreamLeavesTheSecondUnanswered() throws {
        let fixture = try WebPushTestFixture()
        let subscription = try fixture.simulator.makeSubscription()
        let reference = try WebPushReference.run(fixture.referenceRequest(for: subscription, plaintexts: ["one", "two"]))
        let authorization = try XCTUnwrap(reference.py_vapid_authorization)
        fixture.simulator.setFaults(APNsSimulatorFaults(goAwayAfterStreams: 1))
        let client = try fixture.client()
        let answers = client.send(reference.bodyBytes.map { fixture.request(subscription, body: $0, authorization: authorization) })
        XCTAssertEqual(answers.map(\.status), [201, nil])
        XCTAssertEqual(client.goAway?.lastStreamID, 1)
        XCTAssertEqual(fixture.simulator.messages(for: subscription.id).map(\.text), ["one"])
        XCTAssertEqual(fixture.simulator.statistics.goAwaysSent, 1)
    }

    /// A connection that decrypted for a subscription decrypts with the new
    /// keys once the subscription is added again under the same id.
    func testASubscriptionAddedAgainUnderItsIdIsDecryptedWithItsNewKeys() throws {
        let fixture = try WebPushTestFixture()
        let old = try fixture.simulator.addSubscription(privateKey: [UInt8](repeating: 7, count: 32),
                                                        authSecret: [UInt8](repeating: 1, count: 16), id: "renewed")
        let oldReference = try WebPushReference.run(fixture.referenceRequest(for: old, plaintexts: ["old keys"]))
        let client = try fixture.client()
        let authorization = try XCTUnwrap(oldReference.py_vapid_authorization)
        XCTAssertEqual(client.send(fixture.request(old, body: oldReference.bodyBytes[0], authorization: authorization)).status, 201)

        let renewed = try fixture.simulator.addSubscription(privateKey: [UInt8](repeating: 9, count: 32),
                                                            authSecret: [UInt8](repeating: 2, count: 16), id: "renewed")
        XCTAssertNotEqual(renewed.p256dh, old.p256dh)
        let newReference = try WebPushReference.run(fixture.referenceRequest(for: renewed, plaintexts: ["new keys"]))
        let response = client.send(fixture.request(renewed, body: newReference.bodyBytes[0], authorization: authorization))
        XCTAssertEqual(response.status, 201, String(decoding: response.body, as: UTF8.self))
        XCTAssertEqual(fixture.simulator.messages(for: "renewed").map(\.text), ["old keys", "new keys"])
    }

    func testASubscriptionNeedsARunningSimulatorAndAValidAuthSecret() throws {
        let simulator = try WebPushSimulator()
        XCTAssertThrowsError(try simulator.makeSubscription())
        try simulator.start()
        XCTAssertThrowsError(try simulator.addSubscription(privateKey: [UInt8](repeating: 1, count: 32), authSecret: [1, 2]))
        XCTAssertThrowsError(try simulator.makeSubscription(applicationServerKey: "AAAA"))
        let subscription = try simulator.makeSubscription()
        XCTAssertEqual(webPushDecode(subscription.p256dh).count, 65)
        XCTAssertEqual(webPushDecode(subscription.p256dh).first, 0x04)
        XCTAssertEqual(webPushDecode(subscription.auth).count, 16)
        XCTAssertTrue(subscription.endpoint.hasPrefix("https://127.0.0.1:\(simulator.port)/push/"))
        XCTAssertNotEqual(try simulator.makeSubscription().id, subscription.id)
    }
}

/// RFC 8291 §5 and Appendix A: the example message and its keys.
enum RFC8291Example {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let receiverPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let message = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
}
