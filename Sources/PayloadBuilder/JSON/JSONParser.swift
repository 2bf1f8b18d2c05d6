/// A strict RFC 8259 parser for request bodies.
///
/// Stricter than Foundation where a gateway needs it: invalid UTF-8 and lone
/// surrogate escapes are reported as `invalid_utf8` *with the field they are
/// in*; a key written twice in one object (same code units, RFC 8259 §8.3) is refused (two parsers reading one
/// body differently is how smuggling starts); nesting is capped. Errors are
/// `EventError`s that name the field, ready to answer with.
public struct JSONParser {
    /// Deepest nesting accepted; an event needs 3 or 4 levels.
    public static let maximumDepth = 32

    /// Where the next byte is in the document, which every method is lent
    /// as a span (`input`): bounds-checked reads, and no pointer.
    private var position = 0
    /// Where the value being parsed is. Keys are kept as the offset of their
    /// opening quote (no string copies on the way down) and read again only
    /// when an error names the path.
    private var path: [PathStep] = []
    private var scratch: [UInt8] = []

    private enum PathStep {
        case key(quoteAt: Int)
        case index(Int)
    }

    private init() {
        path.reserveCapacity(8)
    }

    /// Parses one JSON document that must fill `bytes` (whitespace aside).
    public static func parse(_ bytes: [UInt8]) throws(EventError) -> JSONValue {
        try parse(bytes.span)
    }

    /// Parses one JSON document that must fill `bytes` (a rendered
    /// request's body, a slice of its event's bodies).
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(EventError) -> JSONValue {
        try parse(bytes.span)
    }

    private static func parse(_ input: Span<UInt8>) throws(EventError) -> JSONValue {
        var parser = JSONParser()
        parser.skipWhitespace(input)
        let value = try parser.parseValue(input)
        parser.skipWhitespace(input)
        guard parser.position == input.count else {
            throw parser.syntaxError("unexpected data after the JSON value")
        }
        return value
    }

    // MARK: values

    private mutating func parseValue(_ input: Span<UInt8>) throws(EventError) -> JSONValue {
        guard position < input.count else { throw syntaxError("unexpected end of input") }
        switch input[position] {
        case UInt8(ascii: "{"): return try parseObject(input)
        case UInt8(ascii: "["): return try parseArray(input)
        case UInt8(ascii: "\""): return .string(try parseString(input))
        case UInt8(ascii: "t"): try expectLiteral(input, "true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral(input, "false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral(input, "null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(input)
        default: throw syntaxError("unexpected character")
        }
    }

    private mutating func parseObject(_ input: Span<UInt8>) throws(EventError) -> JSONValue {
        try enterContainer(input)
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        // Keys seen so far, once an object is large enough that a linear
        // duplicate check would be quadratic. Compared as code units (RFC 8259 §8.3).
        var seenKeys: Set<[UInt8]>?
        skipWhitespace(input)
        if peek(input, UInt8(ascii: "}")) {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace(input)
            guard peek(input, UInt8(ascii: "\"")) else { throw syntaxError("expected a string key") }
            let keyStart = position
            let key = try parseString(input)
            if Self.isDuplicate(key, in: members, seen: &seenKeys) {
                throw EventError(.invalidJSON, at: jsonPath(input).appending(key), "the key \"\(key)\" appears twice in one object")
            }
            skipWhitespace(input)
            guard peek(input, UInt8(ascii: ":")) else { throw syntaxError("expected ':' after a key") }
            position += 1
            skipWhitespace(input)
            path.append(.key(quoteAt: keyStart))
            let value = try parseValue(input)
            path.removeLast()
            members.append((key, value))
            skipWhitespace(input)
            if peek(input, UInt8(ascii: ",")) {
                position += 1
                continue
            }
            guard peek(input, UInt8(ascii: "}")) else { throw syntaxError("expected ',' or '}'") }
            position += 1
            return .object(members)
        }
    }

    /// Whether `key` is already among `members`: a linear scan for small
    /// objects, a hash set (built on demand) past 16 members.
    private static func isDuplicate(_ key: String, in members: [(key: String, value: JSONValue)],
                                    seen: inout Set<[UInt8]>?) -> Bool {
        if members.count < 16 {
            return members.contains(where: { $0.key.hasSameCodeUnits(as: key) })
        }
        if seen == nil { seen = Set(members.map { Array($0.key.utf8) }) }
        return !seen!.insert(Array(key.utf8)).inserted
    }

    private mutating func parseArray(_ input: Span<UInt8>) throws(EventError) -> JSONValue {
        try enterContainer(input)
        position += 1
        var items: [JSONValue] = []
        skipWhitespace(input)
        if peek(input, UInt8(ascii: "]")) {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace(input)
            path.append(.index(items.count))
            let value = try parseValue(input)
            path.removeLast()
            items.append(value)
            skipWhitespace(input)
            if peek(input, UInt8(ascii: ",")) {
                position += 1
                continue
            }
            guard peek(input, UInt8(ascii: "]")) else { throw syntaxError("expected ',' or ']'") }
            position += 1
            return .array(items)
        }
    }

    private func enterContainer(_ input: Span<UInt8>) throws(EventError) {
        if path.count >= JSONParser.maximumDepth {
            throw EventError(.invalidJSON, at: jsonPath(input), "nesting deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    // MARK: strings

    /// Parses a string at `position` (which holds the opening quote),
    /// validating UTF-8 and escapes.
    private mutating func parseString(_ input: Span<UInt8>) throws(EventError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes, just validate; plain ASCII is skipped a word at a time.
        while position < input.count {
            position = JSONEscaping.firstToEscapeOrNonASCII(in: input, from: position)
            guard position < input.count else { break }
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let text = JSONScanner.string(input, start..<position)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw syntaxError("control character in a string must be escaped") }
            if byte < 0x80 {
                position += 1
            } else {
                try skipMultibyteScalar(input)
            }
        }
        // Slow path: copy what was seen, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        for index in start..<position { scratch.append(input[index]) }
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape(input)
            } else if byte < 0x20 {
                throw syntaxError("control character in a string must be escaped")
            } else if byte < 0x80 {
                scratch.append(byte)
                position += 1
            } else {
                let scalarStart = position
                try skipMultibyteScalar(input)
                for index in scalarStart..<position { scratch.append(input[index]) }
            }
        }
        throw syntaxError("unterminated string")
    }

    private mutating func parseEscape(_ input: Span<UInt8>) throws(EventError) {
        position += 1
        guard position < input.count else { throw syntaxError("unterminated escape") }
        let byte = input[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(input)
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"), input[position + 1] == UInt8(ascii: "u") else {
                    throw utf8Error(input, "a lone UTF-16 surrogate escape is not a character")
                }
                position += 2
                let low = try parseHex4(input)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw utf8Error(input, "a lone UTF-16 surrogate escape is not a character")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw utf8Error(input, "a lone UTF-16 surrogate escape is not a character")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw utf8Error(input, "escape is not a Unicode scalar") }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw syntaxError("unknown escape sequence")
        }
    }

    private mutating func parseHex4(_ input: Span<UInt8>) throws(EventError) -> UInt32 {
        guard position + 4 <= input.count else { throw syntaxError("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONTextRules.hexDigit(input[position]) else { throw syntaxError("bad hex digit in \\u escape") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence at `position` (RFC 3629 table)
    /// and moves past it.
    @inline(__always)
    private mutating func skipMultibyteScalar(_ input: Span<UInt8>) throws(EventError) {
        switch JSONTextRules.multibyteScalar(in: input, at: position) {
        case let .valid(length): position += length
        case .invalidLead: throw utf8Error(input, "invalid UTF-8 byte 0x\(String(input[position], radix: 16))")
        case .truncated: throw utf8Error(input, "truncated UTF-8 sequence")
        case .invalidSequence: throw utf8Error(input, "invalid UTF-8 sequence")
        }
    }

    // MARK: numbers and literals

    private mutating func parseNumber(_ input: Span<UInt8>) throws(EventError) -> JSONValue {
        let start = position
        var integral = true
        if peek(input, UInt8(ascii: "-")) { position += 1 }
        guard position < input.count, isDigit(input[position]) else { throw syntaxError("invalid number") }
        if input[position] == UInt8(ascii: "0") {
            position += 1
            if position < input.count, isDigit(input[position]) { throw syntaxError("leading zeros are not allowed") }
        } else {
            while position < input.count, isDigit(input[position]) { position += 1 }
        }
        if peek(input, UInt8(ascii: ".")) {
            integral = false
            position += 1
            guard position < input.count, isDigit(input[position]) else { throw syntaxError("invalid number") }
            while position < input.count, isDigit(input[position]) { position += 1 }
        }
        if peek(input, UInt8(ascii: "e")) || peek(input, UInt8(ascii: "E")) {
            integral = false
            position += 1
            if peek(input, UInt8(ascii: "+")) || peek(input, UInt8(ascii: "-")) { position += 1 }
            guard position < input.count, isDigit(input[position]) else { throw syntaxError("invalid number") }
            while position < input.count, isDigit(input[position]) { position += 1 }
        }
        // Up to 18 digits always fit an Int64: no text needed.
        if integral, position - start <= 18 {
            var value: Int64 = 0
            let negative = input[start] == UInt8(ascii: "-")
            for index in (negative ? start + 1 : start)..<position {
                value = value * 10 + Int64(input[index] - UInt8(ascii: "0"))
            }
            return .int(negative ? -value : value)
        }
        let text = JSONScanner.string(input, start..<position)
        if integral, let value = Int64(text) { return .int(value) }
        // Valid JSON, but no number a field can hold: the error names the field.
        guard let value = Double(text), value.isFinite else {
            throw EventError(.invalidJSON, at: jsonPath(input), "number out of range at byte \(position)")
        }
        return .double(value)
    }

    @inline(__always)
    private mutating func expectLiteral(_ input: Span<UInt8>, _ literal: String) throws(EventError) {
        let count = literal.utf8.count
        guard position + count <= input.count else { throw syntaxError("unexpected end of input") }
        var offset = position
        for expected in literal.utf8 {
            guard input[offset] == expected else { throw syntaxError("unexpected character") }
            offset += 1
        }
        position += count
    }

    // MARK: helpers

    private mutating func skipWhitespace(_ input: Span<UInt8>) {
        var index = position
        scan: while index < input.count {
            switch input[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: break scan
            }
        }
        position = index
    }

    @inline(__always)
    private func peek(_ input: Span<UInt8>, _ byte: UInt8) -> Bool {
        position < input.count && input[position] == byte
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func syntaxError(_ what: String) -> EventError {
        EventError(.invalidJSON, field: nil, "\(what) at byte \(position)")
    }

    private func utf8Error(_ input: Span<UInt8>, _ what: String) -> EventError {
        EventError(.invalidUTF8, at: jsonPath(input), "\(what) at byte \(position)")
    }

    /// The path of the value being parsed, with its keys read again from the input.
    private func jsonPath(_ input: Span<UInt8>) -> JSONPath {
        var components: [JSONPath.Component] = []
        for step in path {
            switch step {
            case let .index(index):
                components.append(.index(index))
            case let .key(quoteAt):
                // The key parsed once already, so it parses again.
                var reader = JSONParser()
                reader.position = quoteAt
                components.append(.key((try? reader.parseString(input)) ?? ""))
            }
        }
        return JSONPath(components)
    }
}
