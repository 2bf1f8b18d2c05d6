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
