import XCTest
import PayloadBuilder

/// Shared fixtures for the PayloadBuilder tests: a valid base event that the
/// tests mutate, configurations, and small readers for rendered JSON.
enum EventFixture {
    static let apnsToken = "4f1c2e8a9b7d6c5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e"
    static let fcmToken = "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1"

    /// A valid event as a JSON value, ready to be mutated.
    static func baseEvent() -> JSONValue {
        .object([
            ("conversation", .object([("id", .string("37791233165968")), ("title", .string("🎧 Zalo - Tran Nghia"))])),
            ("message", .object([("id", .string("537")), ("text", .string("Hello")), ("kind", .string("text")),
                                 ("rich_text", .bool(false))])),
            ("sender", .object([("id", .string("6872016393687471")), ("display_name", .string("Nghĩa")),
                                ("avatar_url", .string("https://example.com/avatar/64x64.jpeg"))])),
            ("recipients", .array([
                .object([("platform", .string("fcm")), ("token", .string(fcmToken)), ("badge", .int(3)),
                         ("locale", .string("vi"))]),
                .object([("platform", .string("apns")), ("token", .string(apnsToken)), ("user_id", .string("42"))]),
            ])),
            ("notification", .object([("title", .null), ("sound", .string("default")), ("ttl_seconds", .int(86400)),
                                      ("priority", .string("high"))])),
            ("data", .object([("any_extra_key", .string("string values only"))])),
        ])
    }

    /// Compact UTF-8 bytes of a JSON value.
    static func bytes(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes
    }

    /// The base event with `edit` applied, as bytes.
    static func eventBytes(_ edit: (inout JSONValue) -> Void = { _ in }) -> [UInt8] {
        var event = baseEvent()
        edit(&event)
        return bytes(event)
    }

    /// The base event whose string `marker` (written once, quotes excluded) is
    /// replaced by `raw` bytes: for breakage a JSON writer cannot produce.
    static func eventBytes(replacing marker: String, with raw: [UInt8], _ edit: (inout JSONValue) -> Void) -> [UInt8] {
        let bytes = eventBytes(edit)
        let needle = Array(marker.utf8)
        guard let start = (0...(bytes.count - needle.count)).first(where: { Array(bytes[$0..<$0 + needle.count]) == needle })
        else { return bytes }
        return Array(bytes[..<start]) + raw + Array(bytes[(start + needle.count)...])
    }

    /// Sets the event's `data` object to exactly `members`.
    static func setData(_ members: [(String, JSONValue)]) -> (inout JSONValue) -> Void {
        { event in event[path: "data"] = .object(members.map { (key: $0.0, value: $0.1) }) }
    }

    /// The demo configuration: one app with APNs and FCM.
    static let demo = RenderConfig.demo()

    /// A configuration parsed from JSON text (fails the test on error).
    static func config(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> RenderConfig {
        do {
            return try RenderConfig(json: Array(json.utf8))
        } catch {
            XCTFail("configuration refused: \(error)", file: file, line: line)
            return demo
        }
    }

    /// Two apps, so an event must name one.
    static let twoApps = config("""
        {"apps": [{"name": "chat", "apns": {"topic": "com.example.chat"}, "fcm": {"project_id": "chat-project"}},
                  {"name": "shop", "fcm": {"project_id": "shop-project"}}]}
        """)

    /// One app that renames `ps_thread_id` to `conversationId` and leaves `avatar_url` out.
    static let renamedKeys = config("""
        {"apps": [{"name": "chat", "apns": {"topic": "com.example.chat"}, "fcm": {"project_id": "chat-project"},
                   "data_keys": {"ps_thread_id": "conversationId", "avatar_url": null}}]}
        """)

    /// One app with FCM only.
    static let fcmOnly = config("""
        {"apps": [{"name": "android", "fcm": {"project_id": "android-project"}}]}
        """)
}

// MARK: - Editing JSON values

extension JSONValue {
    /// Reads or writes the value at a dotted path (`sender.display_name`,
    /// `recipients.0.token`); setting nil removes the member.
    subscript(path path: String) -> JSONValue? {
        get {
            var current: JSONValue? = self
            for step in path.split(separator: ".") {
                guard let value = current else { return nil }
                if let index = Int(step) {
                    guard case let .array(items) = value, items.indices.contains(index) else { return nil }
                    current = items[index]
                } else {
                    current = value[String(step)]
                }
            }
            return current
        }
        set {
            let steps = path.split(separator: ".").map(String.init)
            JSONValue.set(&self, steps[...], to: newValue)
        }
    }

    private static func set(_ value: inout JSONValue, _ steps: ArraySlice<String>, to newValue: JSONValue?) {
        guard let step = steps.first else {
            value = newValue ?? .null
            return
        }
        let rest = steps.dropFirst()
        switch value {
        case var .array(items):
            guard let index = Int(step), (0...items.count).contains(index) else { return }
            if index == items.count {
                // Appends a new last element.
                guard let newValue else { return }
                var child = JSONValue.object([])
                set(&child, rest, to: newValue)
                items.append(rest.isEmpty ? newValue : child)
            } else if rest.isEmpty, newValue == nil {
                items.remove(at: index)
            } else {
                set(&items[index], rest, to: newValue)
            }
            value = .array(items)
        case var .object(members):
            if let index = members.firstIndex(where: { $0.key == step }) {
                if rest.isEmpty, newValue == nil {
                    members.remove(at: index)
                } else {
                    set(&members[index].value, rest, to: newValue)
                }
            } else if let newValue {
                var child = JSONValue.object([])
                set(&child, rest, to: newValue)
                members.append((step, rest.isEmpty ? newValue : child))
            }
            value = .object(members)
        default:
            return
        }
    }

    /// The string payload, or nil.
    var asString: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The integer payload, or nil.
    var asInt: Int64? {
        if case let .int(number) = self { return number }
        return nil
    }

    /// Object keys in order, or nil.
    var memberKeys: [String]? {
        if case let .object(members) = self { return members.map(\.key) }
        return nil
    }

    /// Object members in order, or nil.
    var objectMembers: [(key: String, value: JSONValue)]? {
        if case let .object(members) = self { return members }
        return nil
    }
}

// MARK: - Assertions

/// Runs `body`, expecting it to throw an `EventError`; returns it.
func expectEventError<T>(_ body: () throws(EventError) -> T, file: StaticString = #filePath, line: UInt = #line)
    -> EventError?
{
    do {
        let value = try body()
        XCTFail("expected an EventError, but it succeeded (\(type(of: value)))", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Parses bytes that must be JSON (fails the test otherwise).
func parseJSONOrFail(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
    parseJSONOrFail(bytes[...], file: file, line: line)
}

/// `parseJSONOrFail` of a slice (a rendered request's body).
func parseJSONOrFail(_ bytes: ArraySlice<UInt8>, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
    do {
        return try JSONParser.parse(bytes)
    } catch {
        XCTFail("not valid JSON (\(error)): \(String(decoding: bytes, as: UTF8.self))", file: file, line: line)
        return .null
    }
}

/// Decodes an event with `config` (fails the test on error).
func decodeEventOrFail(_ bytes: [UInt8], config: RenderConfig = EventFixture.demo, file: StaticString = #filePath, line: UInt = #line)
    -> (event: Event, app: AppProfile)?
{
    do {
        return try EventDecoder(config: config).decode(bytes)
    } catch {
        XCTFail("event refused: \(error)", file: file, line: line)
        return nil
    }
}

/// Objects whose first key is awkward, for the key scans' differential
/// tests: `{"` + a key of every length from 0 to 24 (letters) with one of
/// `specials` at each position (or none, for the empty key) + each of `tails`.
func objectsWithOneAwkwardKey(specials: [UInt8], tails: [[UInt8]]) -> [[UInt8]] {
    var inputs: [[UInt8]] = []
    for length in 0...24 {
        for position in 0..<max(length, 1) {
            for special in specials {
                var key = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                if length > 0 { key[position] = special }
                for tail in tails { inputs.append(Array("{\"".utf8) + key + tail) }
            }
        }
    }
    return inputs
}
