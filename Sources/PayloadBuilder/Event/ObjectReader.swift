/// Reads the members of one JSON object with type checks whose errors name
/// the member's full path (`recipients[2].badge`). Refuses members that are
/// not in `allowed` (a short list: a linear scan beats hashing here).
///
/// Keys are matched with `sameKey`: the event's keys are lowercase ASCII
/// letters and `_`, which no other character sequence is canonically
/// equivalent to, so this agrees with `String ==`.
struct ObjectReader {
    let members: [(key: String, value: JSONValue)]
    let location: FieldLocation

    /// The object's path, built when an error names it.
    var path: JSONPath { location.path }

    init(_ value: JSONValue, at location: FieldLocation, allowed: [String]) throws(EventError) {
        guard case let .object(members) = value else {
            throw EventError(.invalidEvent, at: location.path, "must be an object, not \(value.typeName)")
        }
        for member in members where !allowed.contains(where: { ObjectReader.sameKey($0, member.key) }) {
            let known = allowed.sorted().joined(separator: ", ")
            throw EventError(.invalidEvent, at: location.appending(member.key), "unknown field (known here: \(known))")
        }
        self.members = members
        self.location = location
    }

    /// `a == b` for keys, with the cheap length test first (most keys differ in length).
    @inline(__always)
    static func sameKey(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    func has(_ key: String) -> Bool {
        members.contains(where: { ObjectReader.sameKey($0.key, key) })
    }

    func optionalValue(_ key: String) -> JSONValue? {
        members.first(where: { ObjectReader.sameKey($0.key, key) })?.value
    }

    func requiredValue(_ key: String) throws(EventError) -> JSONValue {
        guard let value = optionalValue(key), value != .null else {
            throw EventError(.invalidEvent, at: path.appending(key), "is required")
        }
        return value
    }

    func requiredObject(_ key: String, allowed: [String]) throws(EventError) -> ObjectReader {
        try ObjectReader(requiredValue(key), at: location.child(key), allowed: allowed)
    }

    func optionalObject(_ key: String, allowed: [String]) throws(EventError) -> ObjectReader? {
        guard let value = optionalValue(key), value != .null else { return nil }
        return try ObjectReader(value, at: location.child(key), allowed: allowed)
    }

    /// A required, non-empty string of at most `maxBytes` UTF-8 bytes.
    func requiredString(_ key: String, maxBytes: Int = 4096) throws(EventError) -> String {
        guard let text = try optionalString(key, nonEmpty: true, maxBytes: maxBytes) else {
            throw EventError(.invalidEvent, at: path.appending(key), "is required")
        }
        return text
    }

    /// A string or null/absent. `nonEmpty` refuses `""`.
    func optionalString(_ key: String, nonEmpty: Bool, maxBytes: Int = .max) throws(EventError) -> String? {
        guard let value = optionalValue(key) else { return nil }
        switch value {
        case .null:
            return nil
        case let .string(text):
            if nonEmpty, text.isEmpty {
                throw EventError(.invalidEvent, at: path.appending(key), "must not be empty")
            }
            if text.utf8.count > maxBytes {
                throw EventError(.invalidEvent, at: path.appending(key), "is longer than \(maxBytes) bytes")
            }
            return text
        default:
            throw EventError(.invalidEvent, at: path.appending(key), "must be a string, not \(value.typeName)")
        }
    }

    func optionalBool(_ key: String) throws(EventError) -> Bool? {
        guard let value = optionalValue(key) else { return nil }
        switch value {
        case .null: return nil
        case let .bool(flag): return flag
        default: throw EventError(.invalidEvent, at: path.appending(key), "must be true or false, not \(value.typeName)")
        }
    }

    /// An integer (a JSON number without a fraction or an exponent), or
    /// null/absent. `86400.0` or `8.64e4` is refused with a message saying
    /// how to write it: whether such a literal is whole cannot be told from
    /// the double it was read into (`1e-400` and `0.99999999999999999` read
    /// as 0 and 1).
    func optionalInteger(_ key: String) throws(EventError) -> Int64? {
        guard let value = optionalValue(key) else { return nil }
        switch value {
        case .null: return nil
        case let .int(number): return number
        case let .double(number) where number.magnitude >= 0x1p63:
            // A whole number past what 64 bits hold (a fraction there is lost anyway).
            throw EventError(.invalidEvent, at: path.appending(key), "is out of range")
        case .double:
            throw EventError(.invalidEvent, at: path.appending(key),
                             "must be a whole number written without a fraction or an exponent, e.g. 86400")
        default: throw EventError(.invalidEvent, at: path.appending(key), "must be a number, not \(value.typeName)")
        }
    }

    /// An id (of a conversation, message, user, event): a non-empty string
    /// without control characters, since ids travel in HTTP headers
    /// (`apns-collapse-id`) and collapse keys.
    func requiredIdentifier(_ key: String, maxBytes: Int) throws(EventError) -> String {
        guard let id = try optionalIdentifier(key, maxBytes: maxBytes) else {
            throw EventError(.invalidEvent, at: path.appending(key), "is required")
        }
        return id
    }

    func optionalIdentifier(_ key: String, maxBytes: Int) throws(EventError) -> String? {
        guard let id = try optionalString(key, nonEmpty: true, maxBytes: maxBytes) else { return nil }
        if let problem = ObjectReader.identifierProblem(id) {
            throw EventError(.invalidEvent, at: path.appending(key), problem)
        }
        return id
    }

    /// Why `id` (non-empty, short enough) is not an id, or nil: the rule of
    /// `optionalIdentifier`, shared with the decoder's fast path.
    static func identifierProblem(_ id: String) -> String? {
        var copy = id
        return copy.withUTF8 { identifierProblem(id, utf8: $0) }
    }

    /// `identifierProblem(id)` for the id whose UTF-8 is `utf8`; `id` is
    /// made only when the id is not all ASCII.
    static func identifierProblem(_ id: @autoclosure () -> String, utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let shape = IdentifierShape(utf8)
        if shape.hasControl { return "must not contain control characters" }
        // Ids become HTTP header values, where surrounding whitespace is not kept.
        // All ASCII (and no controls): each end is one scalar, whitespace only if a space.
        let padded: Bool
        if shape.isASCII {
            padded = shape.spaceAtAnEnd
        } else {
            let id = id()
            padded = id.first?.isWhitespace == true || id.last?.isWhitespace == true
        }
        return padded ? "must not start or end with whitespace" : nil
    }
}

/// One pass over an id's bytes, eight at a time: what `optionalIdentifier` checks.
struct IdentifierShape {
    /// A byte below 0x20 or 0x7F.
    var hasControl = false
    /// No byte of 0x80 and above.
    var isASCII = true
    /// The first or the last byte is a space.
    var spaceAtAnEnd = false

    init(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress, let first = utf8.first, let last = utf8.last else { return }
        spaceAtAnEnd = first == 0x20 || last == 0x20
        let count = utf8.count
        guard count >= 8 else {
            for byte in utf8 {
                if byte < 0x20 || byte == 0x7F { hasControl = true }
                if byte >= 0x80 { isASCII = false }
            }
            return
        }
        var high: UInt64 = 0, control: UInt64 = 0
        var index = 0
        while true {
            // The last word ends at the last byte (overlapping bytes already seen).
            let word = UInt64(littleEndian: UnsafeRawPointer(base + min(index, count - 8)).loadUnaligned(as: UInt64.self))
            high |= word
            control |= Self.controlBytes(word)
            index += 8
            if index >= count { break }
        }
        hasControl = control != 0
        isASCII = high & 0x8080_8080_8080_8080 == 0
    }

    /// Non-zero when a byte of `word` is below 0x20 or is 0x7F (exact as to
    /// whether there is one: a borrow only starts at a byte that is).
    @inline(__always)
    static func controlBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let delete = word ^ (ones &* 0x7F)
        return ((word &- ones &* 0x20) & ~word & highs) | ((delete &- ones) & ~delete & highs)
    }
}
