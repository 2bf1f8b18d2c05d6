/// One RESP2 reply, as Redis sent it. A null bulk string and a null array
/// are both `.null`. An error reply is a value here (inside a transaction's
/// or a script's array it is one element among others); `RedisConnection`
/// turns a top-level error reply into a `RedisError` of kind `.server`.
public enum RESPValue: Sendable, Equatable {
    /// `+OK`: a short status line.
    case simpleString(String)
    /// `-ERR …`: the error code (`ERR`, `WRONGTYPE`, `NOSCRIPT`…) and message, as one line.
    case error(String)
    /// `:42`
    case integer(Int64)
    /// `$3\r\nabc`: binary-safe bytes.
    case bulkString([UInt8])
    /// `$-1` or `*-1`.
    case null
    /// `*2\r\n…`: the elements in order, possibly nested.
    case array([RESPValue])

    /// The text of a simple or bulk string (bulk bytes decoded as UTF-8), nil otherwise.
    public var string: String? {
        switch self {
        case let .simpleString(text): text
        case let .bulkString(bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The bytes of a bulk or simple string, nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case let .bulkString(bytes): bytes
        case let .simpleString(text): Array(text.utf8)
        default: nil
        }
    }

    /// An integer reply, or a string reply that spells one; nil otherwise.
    public var integer: Int64? {
        switch self {
        case let .integer(value): value
        case .simpleString, .bulkString: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The elements of an array reply, nil otherwise.
    public var array: [RESPValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
