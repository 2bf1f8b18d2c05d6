@testable import APNsSimulator
import XCTest

/// The APNs validator's fast path (`fastVerdict`, on header bytes) against
/// its strict path (`strictVerdict`, on Strings): whenever the fast path
/// answers, the strict path gives the same answer from the same token
/// state, and leaves the same token state; the usual valid requests are
/// the fast path's; when it stands aside it has not touched the token state.
final class RequestValidatorFastPathTests: XCTestCase {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "com.example.chat"
    static let token = String(repeating: "a1b2", count: 16)
    static let apnsID = "6f1c2a4e-0b3d-4e5f-8a9b-0c1d2e3f4a5b"
    static let now = 1_800_000_000

    /// One field: name, value, sent never-indexed.
    typealias Field = (name: String, value: String, neverIndexed: Bool)

    func testTheUsualValidRequestsTakeTheFastPathWithTheStrictPathsAnswer() throws {
        let key = try SimTestKey()
        let configuration = Self.configuration(key)
        let jwt = Self.jwt(key, issuedAt: Self.now - 10)
        for (label, fields, body) in Self.usual(jwt: jwt) {
            for adopted in [false, true] {
                let tokens = Self.tokens(key, adopting: adopted ? jwt : nil)
                let fast = compare(configuration, fields, body, tokens: tokens, label: "\(label) adopted=\(adopted)")
                guard case .valid? = fast else {
                    XCTFail("\(label): the fast path did not accept a usual request: \(String(describing: fast))")
                    continue
                }
            }
        }
    }

    func testFastAndStrictPathsAgreeOnEveryMutation() throws {
        let key = try SimTestKey()
        let jwt = Self.jwt(key, issuedAt: Self.now - 10)
        let configurations = [
            Self.configuration(key),
            Self.configuration(key, registeredDevices: [Self.token.uppercased(): "com.example.other"]),
            Self.configuration(key, registeredDevices: [Self.token: Self.topic], requiresAPSDictionary: false),
            Self.configuration(key, topics: [Self.topic, "com.exämple.chat"]),
        ]
        let others = [
            Self.jwt(key, issuedAt: Self.now - 5),  // another valid token: too soon to refresh
            Self.jwt(key, issuedAt: Self.now - 7200),  // expired
            Self.jwt(key, issuedAt: Self.now - 10, keyID: "OTHERKEY12"),  // unknown key
            String(jwt.dropLast(2)) + "AA",  // bad signature
        ]
        var fastAnswers = 0
        var total = 0
        for configuration in configurations {
            let (_, base, body) = Self.usual(jwt: jwt)[0]
            for (label, fields, body) in Self.mutations(of: base, body: body, jwt: jwt, others: others) {
                for adopted in [false, true] {
                    let tokens = Self.tokens(key, adopting: adopted ? jwt : nil)
                    let fast = compare(configuration, fields, body, tokens: tokens, label: "\(label) adopted=\(adopted)")
                    total += 1
                    if fast != nil { fastAnswers += 1 }
                }
            }
        }
        XCTAssertGreaterThan(fastAnswers, 0)
        XCTAssertLessThan(fastAnswers, total)
    }

    // MARK: Comparison

    /// Runs both paths on copies of `tokens`; checks they agree; returns the fast verdict.
    private func compare(_ configuration: APNsSimulatorConfiguration, _ fields: [Field], _ body: [UInt8],
                         tokens: ProviderTokenVerifier, label: String) -> RequestVerdict? {
        let validator = RequestValidator(configuration: configuration)
        var request = ReceivedRequest()
        for field in fields { request.fields.append(name: field.name, value: field.value, neverIndexed: field.neverIndexed) }
        request.body = body
        request.bodyLength = body.count
        var devices: [String: String] = [:]  // keyed as SimulatorCore keys them
        for (token, topic) in configuration.registeredDevices { devices[token.lowercased()] = topic }
        let registered: (() -> String) -> String? = { token in devices.isEmpty ? nil : devices[token()] }
        var fastTokens = tokens
        var strictTokens = tokens
        let now = Double(Self.now)
        let fast = validator.fastVerdict(request, tokens: &fastTokens, registeredTopic: registered, now: now)
        let strict = validator.strictVerdict(request, tokens: &strictTokens, registeredTopic: registered, now: now)
        guard let fast else {
            // Standing aside leaves the token state as it was.
            var untouched = tokens
            XCTAssertEqual(fastTokens.hasCurrentToken, tokens.hasCurrentToken, label)
            XCTAssertEqual(Self.probe(&fastTokens), Self.probe(&untouched), label)
            return nil
        }
        switch (fast, strict) {
        case let (.rejected(fastResponse, fastID), .rejected(strictResponse, strictID)):
            XCTAssertEqual(fastResponse, strictResponse, label)
            Self.assertSameID(fastID, strictID, fields: fields, label: label)
        case let (.valid(fastNotification), .valid(strictNotification)):
            Self.assertSameID(fastNotification.apnsID, strictNotification.apnsID, fields: fields, label: label)
            XCTAssertEqual(Self.record(fastNotification), Self.record(strictNotification), label)
            XCTAssertEqual(fastNotification.tokenKey, strictNotification.tokenKey, label)
        default:
            XCTFail("\(label): fast \(Self.summary(fast)) but strict \(Self.summary(strict))")
        }
        XCTAssertEqual(fastTokens.hasCurrentToken, strictTokens.hasCurrentToken, label)
        XCTAssertEqual(Self.probe(&fastTokens), Self.probe(&strictTokens), label)
        return fast
    }

    /// How the token state answers a follow-up: the current token again, then a newer one.
    private static func probe(_ tokens: inout ProviderTokenVerifier) -> [String?] {
        [tokens.check(authorization: "bearer x.y.z", now: Double(now))?.reason,
         tokens.hasCurrentToken ? "current" : "none"]
    }

    private static func summary(_ verdict: RequestVerdict) -> String {
        switch verdict {
        case .valid: "valid"
        case .rejected(let response, _): "\(response.status) \(response.reason ?? "-")"
        }
    }

    private static func assertSameID(_ fast: String, _ strict: String, fields: [Field], label: String) {
        if let sent = fields.first(where: { $0.name == "apns-id" })?.value, APNsIdentifier.isValid(sent) {
            XCTAssertEqual(fast, sent, label)
            XCTAssertEqual(strict, sent, label)
        } else {
            XCTAssertTrue(APNsIdentifier.isValid(fast), label)
            XCTAssertTrue(APNsIdentifier.isValid(strict), label)
        }
    }

    private static func record(_ notification: ValidatedNotification) -> APNsSimulatorNotification {
        APNsSimulatorNotification(
            deviceToken: notification.deviceToken, apnsID: "-", apnsIDWasSent: notification.apnsIDWasSent,
            topic: notification.topic, pushType: notification.pushType, priority: notification.priority,
            expiration: notification.expiration, collapseID: notification.collapseID, payload: notification.payload,
            connectionNumber: 1, streamID: 1, neverIndexedHeaders: notification.neverIndexedHeaders)
    }

    // MARK: Requests

    private static func configuration(_ key: SimTestKey, topics: [String] = [topic], registeredDevices: [String: String] = [:],
                                      requiresAPSDictionary: Bool = true) -> APNsSimulatorConfiguration {
        APNsSimulatorConfiguration(teamID: teamID, keys: [keyID: key.publicKeyPEM], topics: topics,
                                   registeredDevices: registeredDevices, requiresAPSDictionary: requiresAPSDictionary)
    }

    private static func jwt(_ key: SimTestKey, issuedAt: Int, keyID: String = keyID) -> String {
        key.jwt(keyID: keyID, teamID: teamID, issuedAt: issuedAt)
    }

    private static func tokens(_ key: SimTestKey, adopting jwt: String?) -> ProviderTokenVerifier {
        var tokens = ProviderTokenVerifier(configuration: configuration(key))
        if let jwt { XCTAssertNil(tokens.check(authorization: "bearer " + jwt, now: Double(now))) }
        return tokens
    }

    static let payload = Array(#"{"aps":{"alert":{"title":"Hi","body":"there"},"mutable-content":1},"k":[1,"x"]}"#.utf8)

    /// Requests as APNs clients send them.
    static func usual(jwt: String) -> [(String, [Field], [UInt8])] {
        let full: [Field] = [
            (":method", "POST", false), (":scheme", "https", false), (":path", "/3/device/" + token, true),
            (":authority", "127.0.0.1", false), ("authorization", "bearer " + jwt, true), ("apns-id", apnsID, true),
            ("apns-topic", topic, false), ("apns-push-type", "alert", false), ("apns-priority", "10", false),
            ("apns-expiration", "1767312000", true), ("apns-collapse-id", "37791233165968:537", true),
        ]
        let minimal: [Field] = [(":method", "POST", false), (":path", "/3/device/" + token, false),
                                ("authorization", "Bearer " + jwt, false), ("apns-topic", topic, false)]
        var voip = full
        voip[6].value = topic + ".voip"
        voip[7].value = "voip"
        var background = full
        background[7].value = "background"
        background[8].value = "5"
        var extra = full
        extra.append(("content-type", "application/json", false))
        extra.append(("user-agent", "pushgw", false))
        var uppercaseToken = full
        uppercaseToken[2].value = "/3/device/" + token.uppercased() + "ab"
        return [("full", full, payload), ("minimal", minimal, payload), ("voip", voip, Array(repeating: 0x20, count: 5000) + payload),
                ("background", background, payload), ("extra fields", extra, payload), ("uppercase token", uppercaseToken, payload),
                ("priority 1", full.map { $0.name == "apns-priority" ? ($0.name, "1", false) : $0 }, payload)]
    }

    /// The full request broken (or bent) one way at a time.
    static func mutations(of base: [Field], body: [UInt8], jwt: String, others: [String]) -> [(String, [Field], [UInt8])] {
        func setting(_ name: String, _ value: String?) -> [Field] {
            var fields = base.filter { $0.name != name }
            if let value { fields.append((name, value, false)) }
            return fields
        }
        var cases: [(String, [Field], [UInt8])] = []
        let values: [String: [String?]] = [
            ":method": [nil, "GET", "post", "POST "],
            ":path": [nil, "", "/3/device/", "/3/device", "/3/devices/" + token, "/3/device/" + token + "a",
                      "/3/device/" + String(repeating: "a", count: 62), "/3/device/" + String(repeating: "a", count: 202),
                      "/3/device/" + String(token.dropLast()) + "g", "/3/device/" + String(token.dropLast()) + "é",
                      "/3/device/" + token + "?x", "/3/device/\u{301}" + token],
            "authorization": [nil, "", "bearer", "bearer ", "basic " + jwt, "BEARER " + jwt, "bearer  " + jwt, "bearer " + jwt + " ",
                              "bearer\t" + jwt, "bearer x.y.z", "bearer é"] + others.map { "bearer " + $0 },
            "apns-topic": [nil, "", "com.example.other", topic + ".voip", topic + ".complication", topic + ".voi",
                           ".voip", "cöm.example.chat", "com.exämple.chat", "com.exämple.chat.voip", topic.uppercased(),
                           "com.example.\u{212A}"],
            "apns-push-type": [nil, "", "voip", "background", "Alert", "alerts", "mdm", "widgets", "é"],
            "apns-priority": [nil, "", "5", "1", "0", "+10", "010", " 10", "10 ", "١٠"],
            "apns-id": [nil, "", apnsID.uppercased(), String(apnsID.dropLast()), apnsID + "0", apnsID.replacingOccurrences(of: "-", with: "x")],
            "apns-collapse-id": [nil, "", String(repeating: "c", count: 64), String(repeating: "c", count: 65),
                                 String(repeating: "é", count: 32), String(repeating: "é", count: 33)],
            "apns-expiration": [nil, "", "0", "-1", "1.5", "abc", "1767312000 ", String(repeating: "9", count: 18),
                                "9223372036854775807", "9223372036854775808", "00000000000000000000001", "١"],
        ]
        for (name, options) in values.sorted(by: { $0.key < $1.key }) {
            for value in options { cases.append(("\(name)=\(value ?? "absent")", setting(name, value), body)) }
        }
        for (name, value) in [("apns-topic", topic), ("x-a", "1"), (":method", "POST"), ("apns-id", apnsID),
                              ("authorization", "bearer " + jwt), ("apns-priority", "10")] {
            cases.append(("\(name) twice", base + [(name, value, false)], body))
        }
        cases.append(("x-a twice apart", base + [("x-a", "1", false), ("x-b", "2", false), ("x-a", "3", false)], body))
        cases.append(("x-é name", base + [("x-é", "1", false)], body))
        cases.append(("invalid UTF-8 name", base + [("x-\u{FFFD}", "1", false)], body))
        cases.append(("kelvin twice", base + [("x-k", "1", false), ("x-\u{212A}", "1", false)], body))
        cases.append(("pseudo after regular", base + [(":status", "200", false)], body))
        let bodies: [(String, [UInt8])] = [
            ("empty", []), ("{}", Array("{}".utf8)), ("[]", Array("[]".utf8)), ("aps 1", Array(#"{"aps":1}"#.utf8)),
            ("aps twice", Array(#"{"aps":{},"aps":1}"#.utf8)), ("malformed", Array(#"{"aps":{}"#.utf8)),
            ("trailing", Array(#"{"aps":{}} x"#.utf8)), ("4096", Array(repeating: 0x20, count: 4096 - payload.count) + payload),
            ("4097", Array(repeating: 0x20, count: 4097 - payload.count) + payload), ("bad UTF-8", [0x22, 0xC3, 0x28, 0x22]),
        ]
        for (label, bytes) in bodies { cases.append(("body \(label)", base, bytes)) }
        var voip = setting("apns-push-type", "voip")
        voip = voip.map { $0.name == "apns-topic" ? ($0.name, topic + ".voip", false) : $0 }
        for count in [5120, 5121] {
            cases.append(("voip body \(count)", voip, Array(repeating: 0x20, count: count - payload.count) + payload))
        }
        var background = setting("apns-push-type", "background")
        cases.append(("background priority 10", background, body))
        background = background.filter { $0.name != "apns-priority" }
        cases.append(("background without priority", background, body))
        cases.append(("background priority 1", background + [("apns-priority", "1", false)], body))
        cases.append(("background priority 5", background + [("apns-priority", "5", false)], body))
        var location = setting("apns-push-type", "location").filter { $0.name != "apns-priority" }
        location = location.map { $0.name == "apns-topic" ? ($0.name, topic + ".location-query", false) : $0 }
        for priority in ["1", "5", "10"] {
            cases.append(("location priority \(priority)", location + [("apns-priority", priority, false)], body))
        }
        return cases
    }
}

/// Header fields kept as bytes read back as the Strings they always were.
final class HeaderFieldsTests: XCTestCase {
    func testFieldsReadBackAsStringsWithTheirNeverIndexedNames() {
        var request = ReceivedRequest()
        request.fields.append(name: ":path", value: "/3/device/ab", neverIndexed: true)
        request.fields.append(name: "apns-topic", value: "a", neverIndexed: false)
        [UInt8]([0x61, 0xFF]).withUnsafeBufferPointer { value in
            Array("x-bytes".utf8).withUnsafeBufferPointer { request.fields.append(name: $0, value: value, neverIndexed: true) }
        }
        XCTAssertEqual(request.headers.map(\.name), [":path", "apns-topic", "x-bytes"])
        XCTAssertEqual(request.headers.map(\.value), ["/3/device/ab", "a", "a\u{FFFD}"])
        XCTAssertEqual(request.neverIndexedNames, [":path", "x-bytes"])
        XCTAssertEqual(request.value("x-bytes"), "a\u{FFFD}")
        XCTAssertNil(request.value("apns-id"))
        request.fields.append(name: "x-\u{212A}", value: "1", neverIndexed: false)
        request.fields.append(name: "x-K", value: "2", neverIndexed: false)
        XCTAssertEqual(request.value("x-K"), "1", "canonically equivalent names are the same name, as Strings")
        XCTAssertEqual(request.duplicatedHeaderName, "x-K")
    }

    func testTextBytesCompareAsStringsDo() {
        func same(_ left: String, _ right: String) -> Bool {
            Array(left.utf8).withUnsafeBufferPointer { l in Array(right.utf8).withUnsafeBufferPointer { TextBytes.same(l, $0) } }
        }
        for (left, right) in [("a", "a"), ("a", "b"), ("", ""), ("K", "\u{212A}"), ("é", "e\u{301}"), ("ab", "a"), (";", "\u{37E}")] {
            XCTAssertEqual(same(left, right), left == right, "\(left) \(right)")
        }
    }
}
