/// Reads the members of one JSON object with type checks whose errors name
/// the member's full path (`recipients[2].badge`). Refuses members that are
/// not in `allowed` (a short list: a linear scan beats hashing here).
struct ObjectReader {
    let members: [(key: String, value: JSONValue)]
    let path: JSONPath

    init(_ value: JSONValue, at path: JSONPath, allowed: [String]) throws(EventError) {
        guard case let .object(members) = value else {
            throw EventError(.invalidEvent, at: path, "must be an object, not \(value.typeName)")
        }
        for member in members where !allowed.contains(member.key) {
            let known = allowed.sorted().joined(separator: ", ")
            throw EventError(.invalidEvent, at: path.appending(member.key), "unknown field (known here: \(known))")
        }
        self.members = members
        self.path = path
    }

    func has(_ key: String) -> Bool {
        members.contains(where: { $0.key == key })
    }

    func optionalValue(_ key: String) -> JSONValue? {
        members.first(where: { $0.key == key })?.value
    }

    func requiredValue(_ key: String) throws(EventError) -> JSONValue {
        guard let value = optionalValue(key), value != .null else {
            throw EventError(.invalidEvent, at: path.appending(key), "is required")
        }
        return value
    }

    func requiredObject(_ key: String, allowed: [String]) throws(EventError) -> ObjectReader {
        try ObjectReader(requiredValue(key), at: path.appending(key), allowed: allowed)
    }

    func optionalObject(_ key: String, allowed: [String]) throws(EventError) -> ObjectReader? {
        guard let value = optionalValue(key), value != .null else { return nil }
        return try ObjectReader(value, at: path.appending(key), allowed: allowed)
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

    /// An integer (a JSON number without a fraction), or null/absent.
    func optionalInteger(_ key: String) throws(EventError) -> Int64? {
        guard let value = optionalValue(key) else { return nil }
        switch value {
        case .null: return nil
        case let .int(number): return number
        case .double: throw EventError(.invalidEvent, at: path.appending(key), "must be a whole number")
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
        if id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw EventError(.invalidEvent, at: path.appending(key), "must not contain control characters")
        }
        // Ids become HTTP header values, where surrounding whitespace is not kept.
        if id.first?.isWhitespace == true || id.last?.isWhitespace == true {
            throw EventError(.invalidEvent, at: path.appending(key), "must not start or end with whitespace")
        }
        return id
    }
}
