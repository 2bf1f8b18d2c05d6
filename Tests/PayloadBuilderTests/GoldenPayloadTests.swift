import Foundation
import PayloadBuilder
import XCTest

/// Every `fixtures/payloads/NAME.event.json` renders, byte for byte, to
/// `NAME.expected.json` (the `/v1/render` answer), with `NAME.config.json` as
/// the configuration when present. Set `PUSHGW_UPDATE_GOLDEN=1` to rewrite the
/// expected files after an intended change, then review the diff.
final class GoldenPayloadTests: XCTestCase {
    /// The fixed clock of every golden file: 2026-01-01T00:00:00Z.
    static let now: Int64 = 1_767_225_600

    static let fixturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    static func caseNames() throws -> [String] {
        let directory = fixturesDirectory.appendingPathComponent("payloads")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".event.json") }
            .map { String($0.dropLast(".event.json".count)) }
            .sorted()
    }

    /// The golden case `name` as given: its event's bytes and its
    /// configuration (its own `.config.json` when it has one, else the demo's).
    static func input(_ name: String) throws -> (body: [UInt8], config: RenderConfig) {
        let directory = fixturesDirectory.appendingPathComponent("payloads")
        let configURL = directory.appendingPathComponent("\(name).config.json")
        let config = FileManager.default.fileExists(atPath: configURL.path)
            ? try RenderConfig(json: Array(Data(contentsOf: configURL)))
            : RenderConfig.demo()
        return (try Array(Data(contentsOf: directory.appendingPathComponent("\(name).event.json"))), config)
    }

    /// The golden case `name` decoded: its event, app and configuration.
    static func decoded(_ name: String) throws -> (event: Event, app: AppProfile, config: RenderConfig) {
        let (body, config) = try input(name)
        let (event, app) = try EventDecoder(config: config).decode(body)
        return (event, app, config)
    }

    static func render(_ name: String) throws -> RenderedEvent {
        let (event, app, config) = try decoded(name)
        return try EventRenderer(config: config)
            .render(event, app: app, avatar: AvatarState(unresolvedURL: event.sender.avatarURL), now: now)
    }

    func testThereAreAtLeastFourteenGoldenCases() throws {
        XCTAssertGreaterThanOrEqual(try Self.caseNames().count, 14)
    }

    func testEveryFixtureRendersToItsExpectedFileByteForByte() throws {
        let directory = Self.fixturesDirectory.appendingPathComponent("payloads")
        let update = ProcessInfo.processInfo.environment["PUSHGW_UPDATE_GOLDEN"] == "1"
        for name in try Self.caseNames() {
            let actual = RenderReport.json(try Self.render(name), pretty: true)
            let expectedURL = directory.appendingPathComponent("\(name).expected.json")
            if update {
                try Data(actual).write(to: expectedURL)
                continue
            }
            guard let expected = FileManager.default.contents(atPath: expectedURL.path) else {
                XCTFail("\(name): \(expectedURL.lastPathComponent) is missing; run with PUSHGW_UPDATE_GOLDEN=1 and review it")
                continue
            }
            if Array(expected) != actual {
                XCTFail("\(name): rendering differs from \(expectedURL.lastPathComponent)\n"
                    + LineDiff.describe(expected: String(decoding: expected, as: UTF8.self),
                                        actual: String(decoding: actual, as: UTF8.self)))
            }
        }
    }

    /// The golden files show bodies indented; what is sent is compact. A body is
    /// canonical when re-writing its parse gives the same bytes, so the
    /// indented golden file pins the exact wire bytes too.
    func testEveryRenderedBodyIsCanonicalCompactJSON() throws {
        for name in try Self.caseNames() {
            for request in try Self.render(name).requests {
                var writer = JSONWriter()
                writer.value(try JSONParser.parse(request.body))
                XCTAssertEqual(writer.bytes, Array(request.body), "\(name): \(request.platform) body for \(request.token) is not canonical")
            }
        }
    }

    /// The seed chat SDK's FCM payload (fixtures/seeds) is what this gateway
    /// exists to send: ours must carry every key and value it carries. One
    /// deliberate difference: the seed puts the group title in
    /// `communicationInfo.sender.displayName`; we put the sender's name there,
    /// since iOS shows it as the person who wrote (README, "Deviations").
    func testTheSeedChatSDKMessageCarriesEverythingTheSeedPayloadCarries() throws {
        let seedURL = Self.fixturesDirectory.appendingPathComponent("seeds/chat-sdk-fcm-payload.json")
        let seed = try JSONParser.parse(Array(Data(contentsOf: seedURL)))
        let rendered = try Self.render("seed-chat-sdk")
        let fcm = try XCTUnwrap(rendered.requests.first { $0.platform == .fcm })
        let message = try XCTUnwrap(try JSONParser.parse(fcm.body)["message"])

        XCTAssertEqual(message["data"], seed["Data"].map(Self.sortedKeys).flatMap { sorted in
            message["data"].map { Self.reordered(sorted, like: $0) }
        })
        XCTAssertEqual(message["notification"], seed["Notification"])
        XCTAssertEqual(message["android"]?["collapse_key"], seed["Android"]?["collapse_key"])
        XCTAssertEqual(message["android"]?["priority"], seed["Android"]?["priority"])

        let seedPayload = try XCTUnwrap(seed["APNS"]?["payload"])
        let payload = try XCTUnwrap(message["apns"]?["payload"])
        guard case let .object(seedAps)? = seedPayload["aps"] else { return XCTFail("seed has no aps") }
        for (key, value) in seedAps {
            XCTAssertEqual(payload["aps"]?[key], value, "aps.\(key)")
        }
        let seedInfo = seedPayload["notifee_options"]?["ios"]?["communicationInfo"]
        let info = payload["notifee_options"]?["ios"]?["communicationInfo"]
        XCTAssertEqual(info?["conversationId"], seedInfo?["conversationId"])
        XCTAssertEqual(info?["messageId"], seedInfo?["messageId"])
        XCTAssertEqual(info?["sender"]?["id"], seedInfo?["sender"]?["id"])
        XCTAssertEqual(info?["sender"]?["avatar"], seedInfo?["sender"]?["avatar"])
        XCTAssertEqual(info?["sender"]?["displayName"], .string("Nghĩa"))
        XCTAssertEqual(info?["groupName"], seedInfo?["sender"]?["displayName"], "the group title moves to groupName")
    }

    private static func sortedKeys(_ value: JSONValue) -> JSONValue {
        guard case let .object(members) = value else { return value }
        return .object(members.sorted { $0.key < $1.key })
    }

    /// `value`'s members in the key order of `template` (for order-free comparison).
    private static func reordered(_ value: JSONValue, like template: JSONValue) -> JSONValue {
        guard case let .object(members) = value, case let .object(order) = template else { return value }
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1.key, $0) })
        return .object(members.sorted { (rank[$0.key] ?? .max) < (rank[$1.key] ?? .max) })
    }
}

/// A readable account of where two texts differ: the first differing line
/// with a few lines of context on each side.
enum LineDiff {
    static func describe(expected: String, actual: String, context: Int = 3) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = zip(old, new).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset
            ?? (old.count != new.count ? min(old.count, new.count) : nil) else {
            return "(texts are equal)"
        }
        let start = max(0, first - context)
        var lines = ["first difference at line \(first + 1):"]
        for index in start..<min(old.count, first + context + 1) {
            lines.append("\(index == first ? "-" : " ") \(old[index])")
        }
        for index in first..<min(new.count, first + context + 1) {
            lines.append("\(index == first ? "+" : " ") \(new[index])")
        }
        return lines.joined(separator: "\n")
    }
}
