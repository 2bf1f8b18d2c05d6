/// A parsed JSON value, just rich enough for the simulator's checks:
/// the notification payload (an object with an `aps` object) and the JWT
/// header and claims (`alg`, `kid`, `iss`, `iat`).
enum SimulatorJSON: Equatable {
    case object([String: SimulatorJSON])
    case array([SimulatorJSON])
    case string(String)
    /// A number, kept as its literal text so integers stay exact.
    case number(String)
    case bool(Bool)
    case null

    /// The value for `key` when this is an object.
    subscript(key: String) -> SimulatorJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text when this is a string.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value when this is an integer literal (no fraction, no exponent)
    /// that fits in 64 bits.
    var integerValue: Int64? {
        if case .number(let literal) = self { return Int64(literal) }
        return nil
    }

    /// Whether this is an object.
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

extension SimulatorJSON: StrictJSONBuildable {
    static func makeKey(_ utf8: UnsafeBufferPointer<UInt8>) -> String { String(decoding: utf8, as: UTF8.self) }
    static func beginObject() -> [String: SimulatorJSON] { [:] }
    /// A repeated key: the last one wins.
    static func add(_ key: String, _ value: SimulatorJSON, to object: inout [String: SimulatorJSON]) {
        object[key] = value
    }
    static func endObject(_ object: consuming [String: SimulatorJSON]) -> SimulatorJSON { .object(object) }
    static func beginArray() -> [SimulatorJSON] { [] }
    static func add(_ element: SimulatorJSON, to array: inout [SimulatorJSON]) { array.append(element) }
    static func endArray(_ array: consuming [SimulatorJSON]) -> SimulatorJSON { .array(array) }
    static func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> SimulatorJSON { .string(String(decoding: utf8, as: UTF8.self)) }
    static func makeNumber(_ literal: UnsafeBufferPointer<UInt8>) -> SimulatorJSON { .number(String(decoding: literal, as: UTF8.self)) }
    static func makeBool(_ value: Bool) -> SimulatorJSON { .bool(value) }
    static func makeNull() -> SimulatorJSON { .null }
}
