/// Small appenders for byte arrays: the per-device bodies are copied from
/// templates with these (the templates themselves are built with `ByteWriter`).
extension Array where Element == UInt8 {
    mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendJSONString(_ text: String) {
        JSONWriter.appendEscaped(text, to: &self)
    }
}
