import RedisClient

extension RESPValue {
    /// The reply's kind, for an error about an unexpected one (never its content).
    var shape: String {
        switch self {
        case .simpleString: "a status"
        case .error: "an error"
        case .integer: "an integer"
        case .bulkString: "a string"
        case .null: "nil"
        case let .array(elements): "an array of \(elements.count)"
        }
    }
}
