/// Small appenders for hand-assembled JSON fragments: the provider templates
/// are built from these once per event and then copied per device.
extension Array where Element == UInt8 {
    mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendJSONString(_ text: String) {
        JSONWriter.appendEscaped(text, to: &self)
    }

    /// Appends `text` escaped, without quotes (a piece of a longer string).
    mutating func appendJSONStringContent(_ text: String) {
        var text = text
        text.withUTF8 { JSONEscaping.appendUnquoted($0, to: &self) }
    }

    /// Appends `"key":"value"` (the key is written as given, already safe).
    mutating func appendMember(_ key: StaticString, _ value: String) {
        append(UInt8(ascii: "\""))
        appendLiteral(key)
        appendLiteral("\":")
        appendJSONString(value)
    }

    /// Appends `"key":"value"` for a runtime key (escaped).
    mutating func appendMember(dynamicKey key: String, _ value: String) {
        appendJSONString(key)
        append(UInt8(ascii: ":"))
        appendJSONString(value)
    }
}
