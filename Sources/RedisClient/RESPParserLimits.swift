/// The largest replies a `RESPParser` accepts; a reply over a limit is a
/// protocol error (the connection is dropped), never an allocation of
/// whatever size a peer announces.
public struct RESPParserLimits: Sendable, Equatable {
    /// Bytes of one bulk string.
    public var maximumBulkLength: Int
    /// Elements of one array.
    public var maximumArrayCount: Int
    /// Arrays inside arrays.
    public var maximumDepth: Int
    /// Bytes of one line: a simple string, an error, an integer, a header.
    public var maximumLineLength: Int

    public init(maximumBulkLength: Int = 64 << 20, maximumArrayCount: Int = 1 << 20, maximumDepth: Int = 32,
                maximumLineLength: Int = 64 << 10) {
        self.maximumBulkLength = maximumBulkLength
        self.maximumArrayCount = maximumArrayCount
        self.maximumDepth = maximumDepth
        self.maximumLineLength = maximumLineLength
    }
}

/// A reply that is not RESP2, or over a `RESPParserLimits` limit.
public struct RESPProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
