import Foundation
@testable import PayloadBuilder
import TestSupport
import XCTest

/// `EventDecoder`'s fast path (`decodeFast`: straight from the bytes, no
/// tree) against the tree decoder it stands in for (`JSONParser.parse`, then
/// `decode(_: JSONValue)`): whenever the fast path answers, the tree decoder
/// accepts the body with the same event and app; the usual valid events it
/// does answer (else it would be no fast path); every other body, errors
/// included, is left to the tree decoder.
final class EventDecoderFastPathTests: XCTestCase {
    private static let apns = EventFixture.apnsToken
    private static let fcm = EventFixture.fcmToken

    /// Valid events, awkward ones included, that the fast path must settle itself.
    static let valid: [String] = [
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        " \r\n\t{ \"conversation\" : { \"id\" : \"c\" } , \"message\" : {\"id\":\"m\"},\"sender\":{\"id\":\"s\",\"display_name\":\"S\"},\"recipients\":[ {\"platform\":\"apns\",\"token\":\"\(apns.uppercased())\"} ] } \n",
        #"{"recipients":[{"token":"t","platform":"fcm","badge":0,"locale":"vi-VN","user_id":"u 1"}],"sender":{"avatar_url":"HTTPS://é.example/ảnh.jpeg","display_name":"Nghĩa 🎧","id":"6872016393687471"},"message":{"rich_text":true,"kind":"image","text":"<b>Hi</b> &amp; \u00e9\ud83c\udfa7","id":"537"},"conversation":{"title":"","id":"37791233165968"}}"#,
        #"{"event_id":"e\u002F1","app":"demo","conversation":{"id":"c","title":null},"message":{"id":"m","text":null,"kind":null,"rich_text":null},"sender":{"id":"s","display_name":"\"q\"\\\/\b\f\n\r\t","avatar_url":null},"recipients":[{"platform":"fcm","token":"t","badge":null,"locale":null,"user_id":null}],"notification":null,"data":null}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m","kind":"location","text":""},"sender":{"id":"s","display_name":"S","avatar_url":""},"recipients":[{"platform":"fcm","token":"t","badge":2147483647},{"platform":"fcm","token":"T","badge":-0}],"notification":{"title":"T","sound":null,"ttl_seconds":0,"priority":"normal"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"title":"","sound":"","ttl_seconds":2419200,"priority":null},"data":{}}"#,
        #"{"event_id":null,"conversation":{"id":"c\u00e9 1"},"message":{"id":"m\/2"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"a-long-conversation-id"},"message":{"id":"ả"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"event_id":null}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{},"data":{"k":"v","K":"","é":"\u0000x","a\"b":"ü","deeplink":"chat://c/m","k\u0032":"2"}}"#,
        #"{"conversation":{"id":"ảnh"},"message":{"id":"a\u00A0b"},"sender":{"id":"x\u0301","display_name":"\u0301"},"recipients":[{"platform":"apns","token":"\#(apns)","locale":"fr_CA"}],"event_id":"\#(String(repeating: "e", count: 256))"}"#,
        #"{"conversation":{"id":"c","title":"\#(String(repeating: "t", count: 1024))"},"message":{"id":"m","text":"\#(String(repeating: "é", count: 3000))"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"\#(String(repeating: "x", count: 4096))"}]}"#,
    ]

    /// Bodies each broken in one way (or unusual): the tree decoder's to read and word.
    static let unusual: [String] = [
        "", " ", "null", "[]", "{}", "\"x\"", "{", #"{"conversation":{"id":"c"}}"#,
        #"{"conversation":{"id":"c"},"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":"v","k":"w"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":"v","\u006b":"w"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":1.5}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":1e-2}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":01}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":-1}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":2147483648}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":0000000000000000000003}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","extra":1}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"},{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"apns","token":"\#(apns)"},{"platform":"apns","token":"\#(apns.uppercased())"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"},]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]} x"#,
        #"{"conversation":{"id":" c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c\u0001"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c\u2003"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m","kind":"gif"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m","kind":""},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m","rich_text":"true"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S","avatar_url":"ftp://x"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":""},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"apns","token":"abc"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"web","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","locale":""}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"ttl_seconds":2419201}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"notification":{"priority":"urgent"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"from":"x"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"GCM_x":"x"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"sender_id":"x"}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":1}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"data":{"k":null}}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}],"app":"nope"}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"\ud800"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"\x"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
        "{\"conversation\":{\"id\":\"c\"},\"message\":{\"id\":\"m\"},\"sender\":{\"id\":\"s\",\"display_name\":\"a\tb\"},\"recipients\":[{\"platform\":\"fcm\",\"token\":\"t\"}]}",
        #"{"notifcation":{},"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#,
    ]

    // MARK: helpers

    private enum Outcome {
        case fast
        case declined
    }

    /// Compares both paths on `body`: fails when the fast path answers
    /// anything but the tree decoder's event and app, or when what callers
    /// see (`decode(_ body:)`, fast path first) differs from the tree
    /// decoder's answer, event or error.
    @discardableResult
    private func compare(_ body: [UInt8], config: RenderConfig = EventFixture.demo, _ label: @autoclosure () -> String,
                         file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        let decoder = EventDecoder(config: config)
        let tree = Self.result { () throws(EventError) in try decoder.decode(JSONParser.parse(body)) }
        let seen = Self.result { () throws(EventError) in try decoder.decode(body) }
        switch (tree, seen) {
        case let (.success(a), .success(b)):
            XCTAssertEqual(a.event, b.event, label(), file: file, line: line)
            XCTAssertEqual(a.app.name, b.app.name, label(), file: file, line: line)
        case let (.failure(a), .failure(b)):
            // Size and emptiness are checked before parsing; the rest is the tree decoder's.
            if body.count <= config.limits.maximumBodyBytes, b.code != .emptyBody {
                XCTAssertEqual(a, b, label(), file: file, line: line)
            }
        default:
            XCTFail("decode(_:) answers \(seen), the tree decoder \(tree): \(label())", file: file, line: line)
        }
        guard let fast = decoder.decodeFast(body) else { return .declined }
        guard case let .success(expected) = tree else {
            XCTFail("the fast path accepts what the tree decoder refuses: \(label())", file: file, line: line)
            return .fast
        }
        XCTAssertEqual(fast.event, expected.event, label(), file: file, line: line)
        XCTAssertEqual(fast.app.name, expected.app.name, label(), file: file, line: line)
        return .fast
    }

    private static func result(_ body: () throws(EventError) -> (event: Event, app: AppProfile))
        -> Result<(event: Event, app: AppProfile), EventError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    private static func fixtures() throws -> [(name: String, body: [UInt8], config: RenderConfig)] {
        try GoldenPayloadTests.caseNames().map { name in
            let (body, config) = try GoldenPayloadTests.input(name)
            return (name, body, config)
        }
    }

    // MARK: tests

    func testEveryGoldenEventIsSettledByTheFastPathAsTheTreeDecoderSettlesIt() throws {
        let cases = try Self.fixtures()
        XCTAssertGreaterThanOrEqual(cases.count, 14)
        for (name, body, config) in cases {
            XCTAssertEqual(compare(body, config: config, name), .fast, name)
        }
    }

    /// Tags the fast path reads as a supported language's literal, and near misses.
    private static let locales = ["vi", "fr-FR", "EN_us", "en", "fr", "de", "VI", "v", "vn", "fR"]

    func testAwkwardValidEventsAreSettledByTheFastPathAsTheTreeDecoderSettlesThem() {
        for body in Self.valid {
            XCTAssertEqual(compare(Array(body.utf8), body), .fast, body)
        }
        // The base event of the other tests, and every platform mix of many recipients.
        XCTAssertEqual(compare(EventFixture.eventBytes(), "base event"), .fast)
        for count in [1, 2, 10, 16, 17, 100, 500] {
            let items = (0..<count).map { index -> JSONValue in
                let hex = String(index, radix: 16)
                let token = index % 2 == 0 ? "fcm-\(index)" : String(repeating: "0", count: 64 - hex.count) + hex
                return .object([("platform", .string(index % 2 == 0 ? "fcm" : "apns")), ("token", .string(token)),
                                ("badge", .int(Int64(index))), ("locale", .string(Self.locales[index % Self.locales.count]))])
            }
            let body = EventFixture.eventBytes { $0[path: "recipients"] = .array(items) }
            XCTAssertEqual(compare(body, "\(count) recipients"), .fast, "\(count) recipients")
        }
        // Under each app of a two-app configuration, and the renamed keys.
        for app in ["chat", "shop"] {
            let body = EventFixture.eventBytes { event in
                event[path: "app"] = .string(app)
                event[path: "recipients"] = .array([.object([("platform", .string("fcm")), ("token", .string("t"))])])
            }
            XCTAssertEqual(compare(body, config: EventFixture.twoApps, app), .fast, app)
        }
        let renamed = EventFixture.eventBytes(EventFixture.setData([("ps_thread_id", .string("x")), ("avatar_url", .string("y"))]))
        XCTAssertEqual(compare(renamed, config: EventFixture.renamedKeys, "renamed keys"), .fast)
    }

    func testTheFastPathLeavesEveryRefusalAndUnusualBodyToTheTreeDecoder() {
        for body in Self.unusual {
            let bytes = Array(body.utf8)
            XCTAssertEqual(compare(bytes, body), .declined, body)
            XCTAssertThrowsError(try EventDecoder(config: EventFixture.demo).decode(bytes), body)
        }
        // Valid, but with a key written with an escape: the tree decoder's too.
        let escapedKey = #"{"conversation":{"\u0069d":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t"}]}"#
        XCTAssertEqual(compare(Array(escapedKey.utf8), escapedKey), .declined)
        // A number with a fraction or an exponent: refused, by the tree decoder.
        for badge in ["1.0", "1e2"] {
            let body = #"{"conversation":{"id":"c"},"message":{"id":"m"},"sender":{"id":"s","display_name":"S"},"recipients":[{"platform":"fcm","token":"t","badge":"# + badge + "}]}"
            XCTAssertEqual(compare(Array(body.utf8), body), .declined, badge)
            XCTAssertThrowsError(try EventDecoder(config: EventFixture.demo).decode(Array(body.utf8)), badge)
        }
        XCTAssertNoThrow(try EventDecoder(config: EventFixture.demo).decode(Array(escapedKey.utf8)))
        // Configuration-dependent refusals: a platform without credentials, a
        // gateway key under its new name, an event that names no app of two.
        let apnsOnFCMOnly = EventFixture.eventBytes { $0[path: "app"] = nil }
        XCTAssertEqual(compare(apnsOnFCMOnly, config: EventFixture.fcmOnly, "apns without credentials"), .declined)
        let gatewayKey = EventFixture.eventBytes(EventFixture.setData([("conversationId", .string("x"))]))
        XCTAssertEqual(compare(gatewayKey, config: EventFixture.renamedKeys, "gateway key"), .declined)
        XCTAssertEqual(compare(EventFixture.eventBytes(), config: EventFixture.twoApps, "no app named"), .declined)
        var limits = EventLimits()
        limits.maximumRecipients = 1
        let oneRecipient = try? RenderConfig(apps: EventFixture.demo.apps, limits: limits)
        XCTAssertEqual(compare(EventFixture.eventBytes(), config: oneRecipient ?? EventFixture.demo, "too many"), .declined)
    }

    func testFuzzRegressionsAndDictionaryTokensGiveTheSameEventsOnBothPaths() throws {
        let regressions = FuzzRegressionTests.fixturesDirectory.appendingPathComponent("fuzz-regressions")
        for name in try FileManager.default.contentsOfDirectory(atPath: regressions.path) where name.hasSuffix(".bin") {
            let body = try Array(Data(contentsOf: regressions.appendingPathComponent(name)))
            for config in PayloadInvariants.standardConfigs() { compare(body, config: config, name) }
        }
        // Each dictionary token written over, or inserted into, the seed event at seeded places.
        let dictionary = try String(contentsOf: GoldenPayloadTests.fixturesDirectory.deletingLastPathComponent()
            .appendingPathComponent("fuzz/event.dict"), encoding: .utf8)
        let tokens = dictionary.split(separator: "\n").compactMap(Self.dictionaryToken)
        XCTAssertGreaterThan(tokens.count, 100)
        let seed = try XCTUnwrap(Self.fixtures().first { $0.name == "seed-chat-sdk" }).body
        var generator = SplitMix64(seed: 0xD1C7)
        for token in tokens {
            for _ in 0..<6 {
                var copy = seed
                let at = Int.random(in: 0..<copy.count, using: &generator)
                if Bool.random(using: &generator) {
                    copy.insert(contentsOf: token, at: at)
                } else {
                    copy.replaceSubrange(at..<min(copy.count, at + token.count), with: token)
                }
                compare(copy, String(decoding: copy, as: UTF8.self))
            }
        }
    }

    /// Keys are read as two words when 16 bytes follow, else byte by byte:
    /// both give the name of the table, and only equal keys are equal names.
    /// `nextKey` finds a key's end a word at a time: keys of every length up
    /// to three words, with a byte that stops the scan at every position,
    /// and whatever follows, give the key the byte-by-byte rule gives (no
    /// escape, control or non-ASCII byte before the closing quote) or nil.
    func testKeysAreFoundWhereTheByteByByteRuleFindsThem() {
        /// The rule as a byte loop: the key's bytes, or nil.
        func reference(_ input: [UInt8]) -> [UInt8]? {
            var index = 2
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return nil }
                index += 1
            }
            guard index < input.count, index + 1 < input.count, input[index + 1] == UInt8(ascii: ":") else { return nil }
            return Array(input[2..<index])
        }
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xFF, 0x3A]
        let tails: [[UInt8]] = [Array(#"":1}"#.utf8), Array(#"":"#.utf8), Array(#"""#.utf8), [], Array(#"":1,"b":2}"#.utf8)]
        for input in objectsWithOneAwkwardKey(specials: specials, tails: tails) {
            let found: [UInt8]? = input.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                var object = JSONScanner.Container()
                var ended = false
                guard scanner.enter(UInt8(ascii: "{"), &object),
                      let key = scanner.nextKey(&object, ended: &ended) else { return nil }
                return Array(key)
            }
            XCTAssertEqual(found, reference(input), "\(input)")
        }
    }

    func testKeyNamesReadAsWordsOrBytesAreTheSame() {
        // As the decoder's `switch` spells them: literals.
        let literals: [StaticString] = ["", "a", "id", "app", "data", "title", "recipients", "ttl_seconds", "conversation",
                                        "0123456789abcde", "0123456789abcdef"]
        let table = literals.map { KeyName(stringLiteral: $0) }
        let keys = ["", "a", "id", "app", "data", "title", "recipients", "ttl_seconds", "conversation",
                    "0123456789abcde", "0123456789abcdef", "0123456789abcdefg", "id\u{0}", "i", "b", "appp", "datA"]
        for (index, key) in keys.enumerated() {
            for padding in [0, 1, 7, 8, 15, 16, 20] {
                let bytes = Array(key.utf8) + Array(repeating: UInt8(ascii: "\""), count: padding)
                let name = bytes.withUnsafeBufferPointer { input in
                    KeyName(UnsafeBufferPointer(rebasing: input[0..<key.utf8.count]), in: input)
                }
                XCTAssertEqual(name == nil, key.utf8.count > 16, key)
                XCTAssertEqual(name.flatMap { table.firstIndex(of: $0) }, index < table.count ? index : nil, "\(key) + \(padding)")
            }
        }
    }

    /// Thousands of seeded mutants of valid events: byte changes, deletions,
    /// duplicated spans, renamed keys and values of another type. Either
    /// the fast path steps aside or both paths give the same event.
    func testFastAndTreeDecodersAgreeOnThousandsOfMutatedEvents() throws {
        var generator = SplitMix64(seed: 0xFA57)
        let bases = try Self.fixtures().map(\.body).prefix(6) + Self.valid.prefix(6).map { Array($0.utf8) }
        let bytes = Array(#"{}[]":,"\ntf0-1.eEu"#.utf8) + [0x20, 0x00, 0x01, 0xC3, 0xA9, 0xED, 0xFF, 0x7F]
        let names = ["id", "title", "text", "kind", "rich_text", "display_name", "avatar_url", "platform", "token", "badge",
                     "locale", "user_id", "sound", "ttl_seconds", "priority", "app", "event_id", "data", "ID", "id ",
                     #"\u0069d"#, "from", "é", "", "conversation", "recipients"]
        let values = ["null", "0", "-1", "1.5", "1e2", "2147483648", "\"x\"", "\"\"", "true", "{}", "[]", #""\u0000""#,
                      #""\ud800""#, "\" x\"", #"{"id":"c"}"#, #"[{"platform":"fcm","token":"z"}]"#, "\"video\"", "\"normal\""]
        var mutants = 0
        var settledByFast = 0
        for base in bases {
            var variants: [[UInt8]] = base.indices.map { index in var copy = base; copy.remove(at: index); return copy }
            let keys = Self.keyRanges(in: base)
            let scalars = Self.scalarValueRanges(in: base)
            for _ in 0..<300 {
                var copy = base
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    for _ in 0..<Int.random(in: 1...3, using: &generator) {
                        copy[Int.random(in: 0..<copy.count, using: &generator)] = bytes.randomElement(using: &generator)!
                    }
                case 1:
                    let start = Int.random(in: 0..<copy.count, using: &generator)
                    let end = min(copy.count, start + Int.random(in: 1...40, using: &generator))
                    copy.insert(contentsOf: copy[start..<end], at: end)
                case 2:
                    let range = keys.randomElement(using: &generator)!
                    copy.replaceSubrange(range, with: Array(names.randomElement(using: &generator)!.utf8))
                default:
                    let range = scalars.randomElement(using: &generator)!
                    copy.replaceSubrange(range, with: Array(values.randomElement(using: &generator)!.utf8))
                }
                variants.append(copy)
            }
            for variant in variants {
                mutants += 1
                if compare(variant, String(decoding: variant, as: UTF8.self)) == .fast { settledByFast += 1 }
            }
        }
        XCTAssertGreaterThan(mutants, 5000)
        XCTAssertGreaterThan(settledByFast, 100, "some mutants stay valid (\(mutants) tried)")
    }

    /// The ranges of the keys' contents (between the quotes) of a JSON text.
    private static func keyRanges(in bytes: [UInt8]) -> [Range<Int>] {
        stringRanges(in: bytes).filter { range in
            var after = range.upperBound + 1
            while after < bytes.count, bytes[after] == 0x20 || bytes[after] == 0x0A { after += 1 }
            return after < bytes.count && bytes[after] == UInt8(ascii: ":")
        }
    }

    /// The ranges of the values after a `:` that are strings (quotes included) or literals.
    private static func scalarValueRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let strings = stringRanges(in: bytes)
        for colon in bytes.indices where bytes[colon] == UInt8(ascii: ":") && !strings.contains(where: { $0.contains(colon) }) {
            var start = colon + 1
            while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x0A { start += 1 }
            guard start < bytes.count else { continue }
            if bytes[start] == UInt8(ascii: "\""), let string = strings.first(where: { $0.lowerBound == start + 1 }) {
                ranges.append(start..<string.upperBound + 1)
            } else if bytes[start] != UInt8(ascii: "{"), bytes[start] != UInt8(ascii: "[") {
                var end = start
                while end < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A].contains(bytes[end]) { end += 1 }
                ranges.append(start..<end)
            }
        }
        return ranges
    }

    /// The ranges of the contents of every string of a JSON text.
    private static func stringRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else { index += 1; continue }
            let start = index + 1
            index = start
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            ranges.append(start..<min(index, bytes.count))
            index += 1
        }
        return ranges
    }

    /// The bytes of one libFuzzer dictionary line (`"..."` with `\"`, `\\` and `\xNN`), or nil.
    private static func dictionaryToken(_ line: Substring) -> [UInt8]? {
        guard let open = line.firstIndex(of: "\""), line.hasSuffix("\""), !line.hasPrefix("#") else { return nil }
        var bytes: [UInt8] = []
        var rest = Array(line[line.index(after: open)...].utf8.dropLast())[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = rest.popFirst() else { bytes.append(byte); continue }
            if next == UInt8(ascii: "x"), rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(next)
            }
        }
        return bytes
    }
}
