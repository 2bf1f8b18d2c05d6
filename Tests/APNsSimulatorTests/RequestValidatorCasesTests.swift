@testable import APNsSimulator
import XCTest

/// `RequestValidator` on requests as APNs clients send them and on each of
/// their fields broken or bent one way at a time: the answer, by Apple's
/// order of checks, with the values read as bytes (non-ASCII, invalid
/// UTF-8, canonically equivalent names and values included).
final class RequestValidatorCasesTests: XCTestCase {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "com.example.chat"
    static let token = String(repeating: "a1b2", count: 16)
    static let apnsID = "6f1c2a4e-0b3d-4e5f-8a9b-0c1d2e3f4a5b"
    static let now = 1_800_000_000
    static let payload = Array(#"{"aps":{"alert":{"title":"Hi","body":"there"},"mutable-content":1},"k":[1,"x"]}"#.utf8)

    /// One field: name, value, sent never-indexed.
    typealias Field = (name: String, value: String, neverIndexed: Bool)

    private var key: SimTestKey!
    private var jwt = ""

    override func setUpWithError() throws {
        key = try SimTestKey()
        jwt = key.jwt(keyID: Self.keyID, teamID: Self.teamID, issuedAt: Self.now - 10)
    }

    func testTheUsualRequestsAreValidAndReadBackAsSent() {
        for (label, fields, body) in usual() {
            for adopted in [false, true] {
                var tokens = tokens(adopting: adopted)
                guard case .valid(let notification) = verdict(fields, body, tokens: &tokens) else {
                    XCTFail("\(label) adopted=\(adopted): not valid")
                    continue
                }
                XCTAssertTrue(tokens.hasCurrentToken, label)
                let sent = { (name: String) in fields.first { $0.name == name }?.value }
                XCTAssertEqual(notification.apnsIDWasSent, sent("apns-id") != nil, label)
                XCTAssertEqual(notification.apnsID, sent("apns-id") ?? notification.apnsID, label)
                XCTAssertTrue(APNsIdentifier.isValid(notification.apnsID), label)
                XCTAssertEqual(notification.deviceToken, String(sent(":path")!.dropFirst("/3/device/".count)), label)
                XCTAssertEqual(notification.topic, sent("apns-topic"), label)
                XCTAssertEqual(notification.pushType, sent("apns-push-type"), label)
                XCTAssertEqual(notification.priority, Int(sent("apns-priority") ?? "10"), label)
                XCTAssertEqual(notification.expiration, sent("apns-expiration").flatMap { Int64($0) }, label)
                XCTAssertEqual(notification.collapseID, sent("apns-collapse-id"), label)
                XCTAssertEqual(notification.payload, body, label)
                XCTAssertEqual(notification.neverIndexedHeaders, Set(fields.filter(\.neverIndexed).map(\.name)), label)
            }
        }
    }

    func testEachFieldBrokenOneWayGetsItsReason() {
        let base = usual()[0].fields
        func setting(_ name: String, _ value: String?) -> [Field] {
            var fields = base.filter { $0.name != name }
            if let value { fields.append((name, value, false)) }
            return fields
        }
        let token = Self.token
        let cases: [(name: String, value: String?, answer: String)] = [
            (":method", nil, "MethodNotAllowed"), (":method", "GET", "MethodNotAllowed"), (":method", "post", "MethodNotAllowed"),
            (":method", "POST ", "MethodNotAllowed"),
            (":path", nil, "BadPath"), (":path", "", "BadPath"), (":path", "/3/device/", "MissingDeviceToken"),
            (":path", "/3/device", "BadPath"), (":path", "/3/devices/" + token, "BadPath"),
            (":path", "/3/device/" + token + "a", "BadDeviceToken"),
            (":path", "/3/device/" + String(repeating: "a", count: 62), "BadDeviceToken"),
            (":path", "/3/device/" + String(repeating: "a", count: 202), "BadDeviceToken"),
            (":path", "/3/device/" + String(repeating: "a", count: 200), "valid"),
            (":path", "/3/device/" + String(token.dropLast()) + "g", "BadDeviceToken"),
            (":path", "/3/device/" + String(token.dropLast()) + "é", "BadDeviceToken"),
            (":path", "/3/device/" + token + "?x", "BadDeviceToken"),
            (":path", "/3/device/" + token + "\u{301}", "BadDeviceToken"),
            (":path", "/3/device/\u{301}" + token, "BadPath"),  // the mark extends the last `/`
            ("authorization", nil, "MissingProviderToken"), ("authorization", "", "MissingProviderToken"),
            ("authorization", "bearer", "InvalidProviderToken"), ("authorization", "bearer ", "MissingProviderToken"),
            ("authorization", "basic " + jwt, "InvalidProviderToken"), ("authorization", "BEARER " + jwt, "valid"),
            ("authorization", "bearer  " + jwt, "InvalidProviderToken"), ("authorization", "bearer " + jwt + " ", "InvalidProviderToken"),
            ("authorization", "bearer\t" + jwt, "InvalidProviderToken"), ("authorization", "bearer x.y.z", "InvalidProviderToken"),
            ("authorization", "bearer é", "InvalidProviderToken"),
            ("authorization", "bearer " + key.jwt(keyID: Self.keyID, teamID: Self.teamID, issuedAt: Self.now - 7200), "ExpiredProviderToken"),
            ("authorization", "bearer " + key.jwt(keyID: "OTHERKEY12", teamID: Self.teamID, issuedAt: Self.now - 10), "InvalidProviderToken"),
            ("authorization", "bearer " + String(jwt.dropLast(2)) + "AA", "InvalidProviderToken"),
            ("apns-topic", nil, "MissingTopic"), ("apns-topic", "", "MissingTopic"), ("apns-topic", "com.example.other", "BadTopic"),
            ("apns-topic", Self.topic + ".voip", "BadTopic"), ("apns-topic", Self.topic + ".complication", "BadTopic"),
            ("apns-topic", Self.topic + ".voi", "BadTopic"), ("apns-topic", ".voip", "BadTopic"),
            ("apns-topic", "cöm.example.chat", "BadTopic"), ("apns-topic", "com.exämple.chat", "BadTopic"),
            ("apns-topic", Self.topic.uppercased(), "BadTopic"), ("apns-topic", "com.example.\u{212A}", "BadTopic"),
            ("apns-push-type", nil, "valid"), ("apns-push-type", "", "InvalidPushType"), ("apns-push-type", "voip", "BadTopic"),
            ("apns-push-type", "background", "BadPriority"), ("apns-push-type", "Alert", "InvalidPushType"),
            ("apns-push-type", "alerts", "InvalidPushType"), ("apns-push-type", "mdm", "valid"),
            ("apns-push-type", "widgets", "BadTopic"), ("apns-push-type", "é", "InvalidPushType"),
            ("apns-priority", nil, "valid"), ("apns-priority", "", "BadPriority"), ("apns-priority", "5", "valid"),
            ("apns-priority", "1", "valid"), ("apns-priority", "0", "BadPriority"), ("apns-priority", "+10", "BadPriority"),
            ("apns-priority", "010", "BadPriority"), ("apns-priority", " 10", "BadPriority"), ("apns-priority", "10 ", "BadPriority"),
            ("apns-priority", "١٠", "BadPriority"),
            ("apns-id", nil, "valid"), ("apns-id", "", "BadMessageId"), ("apns-id", Self.apnsID.uppercased(), "BadMessageId"),
            ("apns-id", String(Self.apnsID.dropLast()), "BadMessageId"), ("apns-id", Self.apnsID + "0", "BadMessageId"),
            ("apns-id", Self.apnsID.replacingOccurrences(of: "-", with: "x"), "BadMessageId"),
            ("apns-collapse-id", nil, "valid"), ("apns-collapse-id", "", "valid"),
            ("apns-collapse-id", String(repeating: "c", count: 64), "valid"),
            ("apns-collapse-id", String(repeating: "c", count: 65), "BadCollapseId"),
            ("apns-collapse-id", String(repeating: "é", count: 32), "valid"),
            ("apns-collapse-id", String(repeating: "é", count: 33), "BadCollapseId"),
            ("apns-expiration", nil, "valid"), ("apns-expiration", "", "BadExpirationDate"), ("apns-expiration", "0", "valid"),
            ("apns-expiration", "-1", "BadExpirationDate"), ("apns-expiration", "1.5", "BadExpirationDate"),
            ("apns-expiration", "abc", "BadExpirationDate"), ("apns-expiration", "1767312000 ", "BadExpirationDate"),
            ("apns-expiration", String(repeating: "9", count: 18), "valid"), ("apns-expiration", "9223372036854775807", "valid"),
            ("apns-expiration", "9223372036854775808", "BadExpirationDate"),
            ("apns-expiration", "00000000000000000000001", "valid"), ("apns-expiration", "١", "BadExpirationDate"),
        ]
        for (name, value, expected) in cases {
            XCTAssertEqual(answer(setting(name, value)), expected, "\(name)=\(value ?? "absent")")
        }
    }

    func testAFieldTwiceIsRefusedUnlessItIsAPseudoHeader() {
        let base = usual()[0].fields
        let cases: [(label: String, extra: [Field], answer: String)] = [
            ("apns-topic twice", [("apns-topic", Self.topic, false)], "DuplicateHeaders"),
            ("apns-id twice", [("apns-id", Self.apnsID, false)], "DuplicateHeaders"),
            ("authorization twice", [("authorization", "bearer " + jwt, false)], "DuplicateHeaders"),
            ("apns-priority twice", [("apns-priority", "10", false)], "DuplicateHeaders"),
            ("x-a twice apart", [("x-a", "1", false), ("x-b", "2", false), ("x-a", "3", false)], "DuplicateHeaders"),
            ("kelvin and K", [("x-\u{212A}", "1", false), ("x-K", "2", false)], "DuplicateHeaders"),
            ("kelvin and k", [("x-k", "1", false), ("x-\u{212A}", "1", false)], "valid"),
            (":method twice, the first read", [(":method", "GET", false)], "valid"),
            ("x-a once", [("x-a", "1", false)], "valid"),
            ("x-é name", [("x-é", "1", false)], "valid"),
            ("invalid UTF-8 name", [("x-\u{FFFD}", "1", false)], "valid"),
            ("pseudo after regular", [(":status", "200", false)], "valid"),
        ]
        for (label, extra, expected) in cases {
            XCTAssertEqual(answer(base + extra), expected, label)
        }
        var reversed = base
        reversed.insert((":method", "GET", false), at: 0)
        XCTAssertEqual(answer(reversed), "MethodNotAllowed", "the first :method is the one read")
    }

    func testTheBodyIsAnObjectWithAnAPSObjectWithinItsLimit() {
        let base = usual()[0].fields
        let payload = Self.payload
        let bodies: [(String, [UInt8], String)] = [
            ("empty", [], "PayloadEmpty"), ("{}", Array("{}".utf8), "PayloadEmpty"), ("[]", Array("[]".utf8), "PayloadEmpty"),
            ("aps 1", Array(#"{"aps":1}"#.utf8), "PayloadEmpty"), ("aps twice", Array(#"{"aps":{},"aps":1}"#.utf8), "PayloadEmpty"),
            ("malformed", Array(#"{"aps":{}"#.utf8), "PayloadEmpty"), ("trailing", Array(#"{"aps":{}} x"#.utf8), "PayloadEmpty"),
            ("4096", Array(repeating: 0x20, count: 4096 - payload.count) + payload, "valid"),
            ("4097", Array(repeating: 0x20, count: 4097 - payload.count) + payload, "PayloadTooLarge"),
            ("bad UTF-8", [0x22, 0xC3, 0x28, 0x22], "PayloadEmpty"),
        ]
        for (label, body, expected) in bodies { XCTAssertEqual(answer(base, body), expected, label) }
        let voip = base.map { field -> Field in
            switch field.name {
            case "apns-topic": (field.name, Self.topic + ".voip", false)
            case "apns-push-type": (field.name, "voip", false)
            default: field
            }
        }
        XCTAssertEqual(answer(voip, Array(repeating: 0x20, count: 5120 - payload.count) + payload), "valid")
        XCTAssertEqual(answer(voip, Array(repeating: 0x20, count: 5121 - payload.count) + payload), "PayloadTooLarge")
        let loose = configuration(requiresAPSDictionary: false)
        for (label, body) in [("{}", "{}"), ("aps 1", #"{"aps":1}"#), ("aps twice", #"{"aps":{},"aps":1}"#)] {
            XCTAssertEqual(answer(base, Array(body.utf8), configuration: loose), "valid", "\(label) without requiring aps")
        }
        XCTAssertEqual(answer(base, Array("[]".utf8), configuration: loose), "PayloadEmpty")
    }

    func testARegisteredTokenNeedsItsTopicAfterTheEarlierChecks() {
        let registered = configuration(registeredDevices: [Self.token.uppercased(): "com.example.other"])
        let base = usual()[0].fields
        func setting(_ name: String, _ value: String) -> [Field] { base.filter { $0.name != name } + [(name, value, false)] }
        XCTAssertEqual(answer(base, configuration: registered), "DeviceTokenNotForTopic", "tokens are keyed lowercased")
        XCTAssertEqual(answer(setting("apns-topic", "com.example.other"), configuration: registered), "BadTopic")
        XCTAssertEqual(answer(setting("apns-topic", ""), configuration: registered), "MissingTopic")
        XCTAssertEqual(answer(setting("authorization", "bearer x.y.z"), configuration: registered), "InvalidProviderToken")
        XCTAssertEqual(answer(setting("apns-priority", "0"), configuration: registered), "DeviceTokenNotForTopic")
        XCTAssertEqual(answer(setting("apns-push-type", "voip"), configuration: registered), "DeviceTokenNotForTopic")
        XCTAssertEqual(answer(base, [], configuration: registered), "DeviceTokenNotForTopic")
        let own = configuration(registeredDevices: [Self.token: Self.topic])
        XCTAssertEqual(answer(base, configuration: own), "valid")
    }

    func testTopicsAreComparedAsBytes() {
        let unicode = configuration(topics: [Self.topic, "com.exämple.chat"])
        let base = usual()[0].fields
        func topic(_ value: String) -> [Field] { base.filter { $0.name != "apns-topic" } + [("apns-topic", value, false)] }
        XCTAssertEqual(answer(topic("com.exämple.chat"), configuration: unicode), "valid")
        XCTAssertEqual(answer(topic("com.exa\u{308}mple.chat"), configuration: unicode), "BadTopic", "canonically equivalent only")
        XCTAssertEqual(answer(topic("com.exämple.chat.voip"), configuration: unicode), "BadTopic", "an alert on a .voip topic")
        var voip = topic("com.exämple.chat.voip").filter { $0.name != "apns-push-type" }
        voip.append(("apns-push-type", "voip", false))
        XCTAssertEqual(answer(voip, configuration: unicode), "valid")
    }

    func testAProviderTokenRefreshTooSoonIsRefusedAfterEveryEarlierCheck() {
        let soon = "bearer " + key.jwt(keyID: Self.keyID, teamID: Self.teamID, issuedAt: Self.now - 5)
        let base = usual()[0].fields.filter { $0.name != "authorization" } + [("authorization", soon, false)]
        XCTAssertEqual(answer(base), "valid", "a first token")
        XCTAssertEqual(answer(base, adopted: true), "TooManyProviderTokenUpdates")
        let badTopic = base.filter { $0.name != "apns-topic" } + [("apns-topic", "", false)]
        XCTAssertEqual(answer(badTopic, adopted: true), "TooManyProviderTokenUpdates", "the token check comes before the topic")
        let badPath = base.filter { $0.name != ":path" } + [(":path", "/3/device/", false)]
        XCTAssertEqual(answer(badPath, adopted: true), "MissingDeviceToken")
        var tokens = tokens(adopting: false)
        _ = verdict(badPath, Self.payload, tokens: &tokens)
        XCTAssertFalse(tokens.hasCurrentToken, "a refusal before the token check leaves the token state alone")
        _ = verdict(badTopic, Self.payload, tokens: &tokens)
        XCTAssertTrue(tokens.hasCurrentToken, "a refusal after it does not")
    }

    func testARejectionEchoesAValidAPNsIDElseGeneratesOne() {
        let base = usual()[0].fields.filter { $0.name != "apns-topic" }
        var tokens = tokens(adopting: false)
        guard case .rejected(_, let echoed) = verdict(base, Self.payload, tokens: &tokens) else { return XCTFail("accepted") }
        XCTAssertEqual(echoed, Self.apnsID)
        let badID = base.filter { $0.name != "apns-id" } + [("apns-id", "x", false)]
        guard case .rejected(_, let generated) = verdict(badID, Self.payload, tokens: &tokens) else { return XCTFail("accepted") }
        XCTAssertTrue(APNsIdentifier.isValid(generated))
        XCTAssertNotEqual(generated, Self.apnsID)
    }

    // MARK: Requests

    /// Requests as APNs clients send them.
    private func usual() -> [(label: String, fields: [Field], body: [UInt8])] {
        let token = Self.token
        let full: [Field] = [
            (":method", "POST", false), (":scheme", "https", false), (":path", "/3/device/" + token, true),
            (":authority", "127.0.0.1", false), ("authorization", "bearer " + jwt, true), ("apns-id", Self.apnsID, true),
            ("apns-topic", Self.topic, false), ("apns-push-type", "alert", false), ("apns-priority", "10", false),
            ("apns-expiration", "1767312000", true), ("apns-collapse-id", "37791233165968:537", true),
        ]
        let minimal: [Field] = [(":method", "POST", false), (":path", "/3/device/" + token, false),
                                ("authorization", "Bearer " + jwt, false), ("apns-topic", Self.topic, false)]
        var voip = full
        voip[6].value = Self.topic + ".voip"
        voip[7].value = "voip"
        var background = full
        background[7].value = "background"
        background[8].value = "5"
        var extra = full
        extra.append(("content-type", "application/json", false))
        extra.append(("user-agent", "pushgw", false))
        var uppercaseToken = full
        uppercaseToken[2].value = "/3/device/" + token.uppercased() + "ab"
        var priority1 = full
        priority1[8].value = "1"
        let payload = Self.payload
        return [("full", full, payload), ("minimal", minimal, payload),
                ("voip", voip, Array(repeating: 0x20, count: 5000) + payload), ("background", background, payload),
                ("extra fields", extra, payload), ("uppercase token", uppercaseToken, payload), ("priority 1", priority1, payload)]
    }

    private func configuration(topics: [String] = [topic], registeredDevices: [String: String] = [:],
                               requiresAPSDictionary: Bool = true) -> APNsSimulatorConfiguration {
        APNsSimulatorConfiguration(teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM], topics: topics,
                                   registeredDevices: registeredDevices, requiresAPSDictionary: requiresAPSDictionary)
    }

    /// Token state, with the usual JWT adopted or not.
    private func tokens(adopting: Bool) -> ProviderTokenVerifier {
        var tokens = ProviderTokenVerifier(configuration: configuration())
        if adopting { XCTAssertNil(tokens.check(authorization: "bearer " + jwt, now: Double(Self.now))) }
        return tokens
    }

    private func verdict(_ fields: [Field], _ body: [UInt8], tokens: inout ProviderTokenVerifier,
                         configuration: APNsSimulatorConfiguration? = nil) -> RequestVerdict {
        let configuration = configuration ?? self.configuration()
        var request = ReceivedRequest()
        for field in fields { request.fields.append(name: field.name, value: field.value, neverIndexed: field.neverIndexed) }
        request.body = body
        request.bodyLength = body.count
        var devices: [String: String] = [:]  // keyed as SimulatorCore keys them
        for (token, topic) in configuration.registeredDevices { devices[token.lowercased()] = topic }
        return RequestValidator(configuration: configuration)
            .validate(request, tokens: &tokens, registeredTopic: { devices.isEmpty ? nil : devices[$0()] }, now: Double(Self.now))
    }

    /// "valid", or the reason of the rejection.
    private func answer(_ fields: [Field], _ body: [UInt8] = payload, configuration: APNsSimulatorConfiguration? = nil,
                        adopted: Bool = false) -> String {
        var tokens = tokens(adopting: adopted)
        switch verdict(fields, body, tokens: &tokens, configuration: configuration) {
        case .valid: return "valid"
        case .rejected(let response, _): return response.reason ?? "-"
        }
    }
}
