@testable import APNsSimulator
import XCTest

/// Apple's header rules (PROTOCOLS.md A2, A3) as `RequestValidator` applies
/// them.
final class RequestValidatorRulesTests: XCTestCase {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let bundle = "com.example.chat"
    static let token = String(repeating: "a1b2", count: 16)
    static let now = 1_800_000_000
    static let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    private var key: SimTestKey!

    override func setUpWithError() throws { key = try SimTestKey() }

    /// The status and reason of a request with these `apns-*` headers
    /// (`nil` value: not sent), or "200".
    func answer(topic: String = bundle, pushType: String?, priority: String?, body: [UInt8] = payload) -> String {
        let configuration = APNsSimulatorConfiguration(teamID: Self.teamID, keys: [Self.keyID: key.publicKeyPEM],
                                                       topics: [Self.bundle])
        let validator = RequestValidator(configuration: configuration)
        var request = ReceivedRequest()
        let jwt = key.jwt(keyID: Self.keyID, teamID: Self.teamID, issuedAt: Self.now - 10)
        var fields: [(String, String)] = [(":method", "POST"), (":path", "/3/device/" + Self.token),
                                          ("authorization", "bearer " + jwt), ("apns-topic", topic)]
        if let pushType { fields.append(("apns-push-type", pushType)) }
        if let priority { fields.append(("apns-priority", priority)) }
        for (name, value) in fields { request.fields.append(name: name, value: value, neverIndexed: false) }
        request.body = body
        request.bodyLength = body.count
        var tokens = ProviderTokenVerifier(configuration: configuration)
        switch validator.validate(request, tokens: &tokens, registeredTopic: { _ in nil }, now: Double(Self.now)) {
        case .valid: return "200"
        case .rejected(let response, _): return "\(response.status) \(response.reason ?? "-")"
        }
    }

    func testTheEffectivePriorityMustSuitBackgroundAndLocationPushes() {
        XCTAssertEqual(answer(pushType: "background", priority: nil), "400 BadPriority", "the default is 10")
        XCTAssertEqual(answer(pushType: "background", priority: "10"), "400 BadPriority")
        XCTAssertEqual(answer(pushType: "background", priority: "1"), "400 BadPriority")
        XCTAssertEqual(answer(pushType: "background", priority: "5"), "200")
        let location = Self.bundle + ".location-query"
        XCTAssertEqual(answer(topic: location, pushType: "location", priority: "1"), "400 BadPriority")
        XCTAssertEqual(answer(topic: location, pushType: "location", priority: "5"), "200")
        XCTAssertEqual(answer(topic: location, pushType: "location", priority: nil), "200")
        XCTAssertEqual(answer(pushType: "alert", priority: "1"), "200")
        XCTAssertEqual(answer(pushType: nil, priority: nil), "200")
    }

    /// A payload that only wakes the app (content-available, no alert,
    /// badge or sound) is a background push whatever the header: priority 5
    /// only, as the FCM simulator has it.
    func testAContentAvailableOnlyPayloadNeedsPriorityFive() {
        let wake = Array(#"{"aps":{"content-available":1},"k":"v"}"#.utf8)
        XCTAssertEqual(answer(pushType: nil, priority: nil, body: wake), "400 BadPriority", "the default is 10")
        XCTAssertEqual(answer(pushType: nil, priority: "10", body: wake), "400 BadPriority")
        XCTAssertEqual(answer(pushType: "background", priority: "5", body: wake), "200")
        XCTAssertEqual(answer(pushType: nil, priority: "5", body: wake), "200")
        let shown = Array(#"{"aps":{"content-available":1,"mutable-content":1,"alert":{"body":"hi"}}}"#.utf8)
        XCTAssertEqual(answer(pushType: "alert", priority: "10", body: shown), "200", "an alert with content-available is an alert")
    }

    func testThePushTypeAndTheTopicSuffixMustNameTheSameKindOfPush() {
        let big = Array(#"{"aps":{},"x":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 4935) + Array(#""}"#.utf8)
        XCTAssertEqual(answer(pushType: "voip", priority: nil, body: big), "400 BadTopic", "no 5120 limit off a .voip topic")
        XCTAssertEqual(answer(topic: Self.bundle + ".voip", pushType: "voip", priority: nil, body: big), "200")
        XCTAssertEqual(answer(topic: Self.bundle + ".voip", pushType: nil, priority: nil, body: big), "413 PayloadTooLarge")
        XCTAssertEqual(answer(topic: Self.bundle + ".voip", pushType: "alert", priority: nil), "400 BadTopic")
        XCTAssertEqual(answer(pushType: "liveactivity", priority: nil), "400 BadTopic")
        let pairs = [("liveactivity", ".push-type.liveactivity"), ("complication", ".complication"),
                     ("fileprovider", ".pushkit.fileprovider"), ("location", ".location-query"), ("pushtotalk", ".voip-ptt"),
                     ("widgets", ".push-type.widgets"), ("controls", ".push-type.controls"), ("alert", ""), ("mdm", "")]
        for (pushType, suffix) in pairs {
            XCTAssertEqual(answer(topic: Self.bundle + suffix, pushType: pushType, priority: "5"), "200", pushType)
            let other = suffix == ".voip-ptt" ? ".voip" : ".voip-ptt"
            XCTAssertEqual(answer(topic: Self.bundle + other, pushType: pushType, priority: "5"), "400 BadTopic", pushType)
        }
        XCTAssertEqual(answer(topic: Self.bundle + ".complication", pushType: nil, priority: nil), "200", "no push type: not paired")
    }
}
