/// A RESP2 reply parser as a value: fed bytes in chunks of any size, split
/// anywhere, it hands back each complete reply in order. No I/O; the
/// connection feeds it what it reads.
///
/// It resumes where the last chunk ended: an array's header and its complete
/// elements are consumed as they arrive (kept on a stack of open arrays), a
/// bulk string waits for its whole payload, and a line is scanned for its
/// CRLF only once. After a `RESPProtocolError` the stream has lost its
/// framing; the parser must not be used again (the connection is dropped).
public struct RESPParser: Sendable {
    public let limits: RESPParserLimits
    private var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    private var start = 0
    /// Bytes after `start` already searched for a CRLF without finding one.
    private var scanned = 0
    /// A bulk string whose header was consumed, waiting for this many bytes (and CRLF).
    private var pendingBulk: Int?
    /// Arrays being filled, outermost first: elements still to come and those read.
    private var open: [(remaining: Int, elements: [RESPValue])] = []

    public init(limits: RESPParserLimits = RESPParserLimits()) {
        self.limits = limits
    }

    /// Bytes received and not yet handed back as part of a reply.
    public var bufferedByteCount: Int { buffer.count - start }

    /// True when no reply is partly read.
    public var isIdle: Bool { buffer.count == start && open.isEmpty && pendingBulk == nil }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    public mutating func next() throws(RESPProtocolError) -> RESPValue? {
        while true {
            var value: RESPValue
            if let length = pendingBulk {
                guard buffer.count - start >= length + 2 else { return nil }
                guard buffer[start + length] == 13, buffer[start + length + 1] == 10 else {
                    throw RESPProtocolError("bulk string of \(length) bytes not followed by CRLF")
                }
                value = .bulkString(Array(buffer[start ..< start + length]))
                start += length + 2
                pendingBulk = nil
            } else {
                guard let lineEnd = try findLineEnd() else { return nil }
                let type = buffer[start]
                let line = buffer[(start + 1) ..< lineEnd]
                start = lineEnd + 2
                scanned = 0
                switch type {
                case UInt8(ascii: "+"):
                    value = .simpleString(String(decoding: line, as: UTF8.self))
                case UInt8(ascii: "-"):
                    value = .error(String(decoding: line, as: UTF8.self))
                case UInt8(ascii: ":"):
                    value = .integer(try Self.integer(line, what: "integer reply"))
                case UInt8(ascii: "$"):
                    let length = try Self.integer(line, what: "bulk string length")
                    if length == -1 {
                        value = .null
                    } else {
                        guard length >= 0 else { throw RESPProtocolError("bulk string length \(length)") }
                        guard length <= limits.maximumBulkLength else {
                            throw RESPProtocolError("bulk string of \(length) bytes, over the limit of \(limits.maximumBulkLength)")
                        }
                        pendingBulk = Int(length)
                        continue
                    }
                case UInt8(ascii: "*"):
                    let count = try Self.integer(line, what: "array length")
                    if count == -1 {
                        value = .null
                    } else if count == 0 {
                        value = .array([])
                    } else {
                        guard count > 0 else { throw RESPProtocolError("array length \(count)") }
                        guard count <= limits.maximumArrayCount else {
                            throw RESPProtocolError("array of \(count) elements, over the limit of \(limits.maximumArrayCount)")
                        }
                        guard open.count < limits.maximumDepth else {
                            throw RESPProtocolError("arrays nested deeper than \(limits.maximumDepth)")
                        }
                        var elements: [RESPValue] = []
                        elements.reserveCapacity(min(Int(count), 1024))
                        open.append((Int(count), elements))
                        continue
                    }
                default:
                    throw RESPProtocolError("unknown reply type byte \(type)")
                }
            }
            // Into the innermost open array; each array that completes goes into the one around it.
            while let last = open.indices.last {
                open[last].elements.append(value)
                open[last].remaining -= 1
                guard open[last].remaining == 0 else { break }
                value = .array(open.removeLast().elements)
            }
            if open.isEmpty { return value }
        }
    }

    /// The index of the CR of the line at `start`, or nil while it is incomplete.
    private mutating func findLineEnd() throws(RESPProtocolError) -> Int? {
        var index = start + scanned
        while index + 1 < buffer.count {
            if buffer[index] == 13 {
                guard buffer[index + 1] == 10 else { throw RESPProtocolError("CR not followed by LF") }
                guard index > start else { throw RESPProtocolError("empty line where a reply was expected") }
                guard index - start - 1 <= limits.maximumLineLength else { throw lineTooLong() }
                return index
            }
            index += 1
        }
        // The last byte may be a CR whose LF is still to come: looked at again.
        scanned = max(0, buffer.count - start - 1)
        if scanned > limits.maximumLineLength + 1 { throw lineTooLong() }
        return nil
    }

    private func lineTooLong() -> RESPProtocolError {
        RESPProtocolError("a line longer than \(limits.maximumLineLength) bytes")
    }

    /// A decimal Int64, optionally negative; nothing else.
    private static func integer(_ digits: ArraySlice<UInt8>, what: String) throws(RESPProtocolError) -> Int64 {
        var index = digits.startIndex
        let negative = index < digits.endIndex && digits[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < digits.endIndex else { throw RESPProtocolError("\(what) is not a number") }
        var value: Int64 = 0
        while index < digits.endIndex {
            let digit = digits[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw RESPProtocolError("\(what) is not a number") }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = negative ? times.subtractingReportingOverflow(Int64(digit))
                : times.addingReportingOverflow(Int64(digit))
            guard !overflowTimes, !overflowSum else { throw RESPProtocolError("\(what) out of range") }
            value = sum
            index += 1
        }
        return value
    }

    /// Lets go of consumed bytes: all of them when nothing is left (most
    /// reads), or the consumed front once it is most of the buffer.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 4096, start * 2 >= buffer.count {
            buffer.removeSubrange(0 ..< start)
            start = 0
        }
    }
}
