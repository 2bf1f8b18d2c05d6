/// A parsed JSON value whose objects keep their members in written order,
/// for the FCM simulator's compact text of a value: the one Google quotes
/// in an "Invalid value" error, and `apns.payload` as FCM measures it.
///
/// A repeated key keeps its first position and its last value (Google:
/// "the last one wins").
enum OrderedJSON: Equatable {
    case object([(key: String, value: OrderedJSON)])
    case array([OrderedJSON])
    case string(String)
    /// A number, kept as its literal text.
    case number(String)
    case bool(Bool)
    case null

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.array(a), .array(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// The members when this is an object.
    var members: [(key: String, value: OrderedJSON)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The value for `key` when this is an object.
    subscript(key: String) -> OrderedJSON? {
        members?.first { $0.key == key }?.value
    }

    /// The text when this is a string.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value when this is a boolean.
    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value when this is an integer literal that fits in 64 bits.
    var integerValue: Int64? {
        if case .number(let literal) = self { return Int64(literal) }
        return nil
    }

    /// Whether this is an object.
    var isObject: Bool { members != nil }

    /// The compact JSON text of the value, as Google echoes a bad value in
    /// an error message (`… (TYPE_STRING), 123`).
    var compactText: String {
        switch self {
        case .object(let members):
            return "{" + members.map { JSONText.quoted($0.key) + ":" + $0.value.compactText }.joined(separator: ",") + "}"
        case .array(let elements):
            return "[" + elements.map(\.compactText).joined(separator: ",") + "]"
        case .string(let text): return JSONText.quoted(text)
        case .number(let literal): return literal
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }
}

extension OrderedJSON: StrictJSONBuildable {
    static func makeKey(_ utf8: UnsafeBufferPointer<UInt8>) -> String { String(decoding: utf8, as: UTF8.self) }
    static func beginObject() -> OrderedMembers { OrderedMembers() }
    static func add(_ key: String, _ value: OrderedJSON, to object: inout OrderedMembers) { object.add(key, value) }
    static func endObject(_ object: consuming OrderedMembers) -> OrderedJSON { .object(object.members) }
    static func beginArray() -> [OrderedJSON] { [] }
    static func add(_ element: OrderedJSON, to array: inout [OrderedJSON]) { array.append(element) }
    static func endArray(_ array: consuming [OrderedJSON]) -> OrderedJSON { .array(array) }
    static func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> OrderedJSON { .string(String(decoding: utf8, as: UTF8.self)) }
    static func makeNumber(_ literal: UnsafeBufferPointer<UInt8>) -> OrderedJSON { .number(String(decoding: literal, as: UTF8.self)) }
    static func makeBool(_ value: Bool) -> OrderedJSON { .bool(value) }
    static func makeNull() -> OrderedJSON { .null }
}
