/// Reads a `messages:send` body against `FCMMessageSchema` as Google's
/// JSON-to-proto layer does, before FCM sees the message: every unknown
/// field and every value of the wrong type is a violation, reported with
/// Google's wording and paths:
///
/// - `Invalid JSON payload received. Unknown name "foo" at 'message.android': Cannot find field.`
///   (field `message.android`);
/// - `Invalid value at 'message.data[0].value' (TYPE_STRING), 123`
///   (field `message.data[0].value`; map entries are counted from 0 in
///   written order).
///
/// `null` leaves a field unset, as in proto3 JSON.
struct FCMMessageReader {
    private(set) var violations: [GoogleError.FieldViolation] = []

    /// Reads `body` (the parsed request) and returns the violations found.
    static func violations(in body: OrderedJSON) -> [GoogleError.FieldViolation] {
        var reader = FCMMessageReader()
        guard let members = body.members else {
            return [GoogleError.FieldViolation(field: nil, description:
                "Invalid JSON payload received. Unknown name \"\": Root element must be a message.")]
        }
        reader.readObject(members, schema: .sendRequest, path: "")
        return reader.violations
    }

    private mutating func readObject(_ members: [(key: String, value: OrderedJSON)], schema: FCMMessageSchema, path: String) {
        for (name, value) in members {
            guard let kind = schema.kind(of: name) else {
                let place = path.isEmpty ? "" : " at '\(path)'"
                violations.append(GoogleError.FieldViolation(
                    field: path.isEmpty ? nil : path,
                    description: "Invalid JSON payload received. Unknown name \(JSONText.quoted(name))\(place): Cannot find field."))
                continue
            }
            if case .null = value { continue }
            read(value, kind: kind, path: { path.isEmpty ? name : path + "." + name })
        }
    }

    /// Checks `value` against `kind`; `path` (built only when needed: for a
    /// violation or to descend into an object) names it in Google's errors.
    private mutating func read(_ value: OrderedJSON, kind: FCMMessageSchema.Kind, path: () -> String) {
        switch kind {
        case .string:
            if value.stringValue == nil { invalid(path(), "TYPE_STRING", value) }
        case .bool:
            if value.boolValue == nil { invalid(path(), "TYPE_BOOL", value) }
        case .integer:
            if !Self.isInteger(value) { invalid(path(), "TYPE_INT32", value) }
        case .number:
            if !Self.isNumber(value) { invalid(path(), "TYPE_FLOAT", value) }
        case .duration:
            guard let text = value.stringValue, Self.isDuration(text) else {
                return invalid(path(), "type.googleapis.com/google.protobuf.Duration", value)
            }
        case .durationList:
            guard case .array(let elements) = value else {
                return invalid(path(), "type.googleapis.com/google.protobuf.Duration", value)
            }
            for (index, element) in elements.enumerated() where !(element.stringValue.map(Self.isDuration) ?? false) {
                invalid("\(path())[\(index)]", "type.googleapis.com/google.protobuf.Duration", element)
            }
        case .timestamp:
            guard let text = value.stringValue, Self.isTimestamp(Array(text.utf8)) else {
                return invalid(path(), "type.googleapis.com/google.protobuf.Timestamp", value)
            }
        case .enumeration(let typeName, let values, let caseInsensitive):
            if let text = value.stringValue {
                let accepted = caseInsensitive ? values.contains(text.uppercased()) : values.contains(text)
                if !accepted { invalid(path(), typeName, value) }
            } else if value.integerValue == nil {
                invalid(path(), typeName, value)
            }
        case .stringMap:
            guard let members = value.members else { return invalid(path(), "map<string, string>", value) }
            for (index, member) in members.enumerated() where member.value.stringValue == nil {
                invalid("\(path())[\(index)].value", "TYPE_STRING", member.value)
            }
        case .stringList:
            guard case .array(let elements) = value else { return invalid(path(), "TYPE_STRING", value) }
            for (index, element) in elements.enumerated() where element.stringValue == nil {
                invalid("\(path())[\(index)]", "TYPE_STRING", element)
            }
        case .object(let schema):
            guard let members = value.members else { return invalid(path(), schema.typeName, value) }
            readObject(members, schema: schema, path: path())
        case .freeObject:
            if !value.isObject { invalid(path(), "type.googleapis.com/google.protobuf.Struct", value) }
        }
    }

    private mutating func invalid(_ path: String, _ type: String, _ value: OrderedJSON) {
        violations.append(GoogleError.FieldViolation(
            field: path, description: "Invalid value at '\(path)' (\(type)), \(value.compactText)"))
    }

    private static func isInteger(_ value: OrderedJSON) -> Bool {
        if value.integerValue != nil { return true }
        if let text = value.stringValue { return Int64(text) != nil }
        return false
    }

    private static func isNumber(_ value: OrderedJSON) -> Bool {
        if case .number = value { return true }
        if let text = value.stringValue { return Double(text) != nil }
        return false
    }

    /// RFC 3339 as proto3 JSON writes a Timestamp:
    /// `YYYY-MM-DDTHH:MM:SS[.1-9 digits](Z|±HH:MM)`, fields in range
    /// (month 1–12, day 1–31, hour 0–23, minute and second 0–59).
    static func isTimestamp(_ bytes: [UInt8]) -> Bool {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ at: Int, _ expected: Character) -> Bool { at < bytes.count && bytes[at] == expected.asciiValue! }
        guard number(0, 4) != nil, byte(4, "-"), let month = number(5, 2), (1...12).contains(month), byte(7, "-"),
              let day = number(8, 2), (1...31).contains(day), byte(10, "T") || byte(10, "t"),
              let hour = number(11, 2), hour < 24, byte(13, ":"), let minute = number(14, 2), minute < 60, byte(16, ":"),
              let second = number(17, 2), second < 60 else { return false }
        var index = 19
        if byte(index, ".") {
            let start = index + 1
            index = start
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard (1...9).contains(index - start) else { return false }
        }
        if byte(index, "Z") || byte(index, "z") { return index + 1 == bytes.count }
        guard byte(index, "+") || byte(index, "-"), let offsetHours = number(index + 1, 2), offsetHours < 24,
              byte(index + 3, ":"), let offsetMinutes = number(index + 4, 2), offsetMinutes < 60 else { return false }
        return index + 6 == bytes.count
    }

    /// The whole seconds of a Duration text `isDuration` accepted, and
    /// whether it has a non-zero fraction.
    static func durationSeconds(_ text: UnsafeBufferPointer<UInt8>) -> (seconds: Int64, hasFraction: Bool, negative: Bool) {
        var seconds: Int64 = 0
        var hasFraction = false
        var inFraction = false
        for byte in text.dropLast() {
            if byte == UInt8(ascii: "-") { continue }
            if byte == UInt8(ascii: ".") { inFraction = true; continue }
            if inFraction { hasFraction = hasFraction || byte != UInt8(ascii: "0") } else { seconds = seconds * 10 + Int64(byte - 0x30) }
        }
        return (seconds, hasFraction, text.first == UInt8(ascii: "-"))
    }

    /// `[-]digits[.1-9 digits]s`, the proto3 JSON form of a Duration.
    static func isDuration(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        guard bytes.last == UInt8(ascii: "s") else { return false }
        bytes = bytes.dropLast()
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              whole.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        }
        return true
    }
}
