/// Percent-decoding of a request target, for libmicrohttpd's unescape
/// callback: `%HH` becomes its byte, except `%00` (a NUL would end the C
/// string the router reads), the delimiters `%2F` (`/`), `%3F` (`?`) and
/// `%23` (`#`), and malformed escapes, which stay as written. A decoded
/// delimiter would make another path than the one sent: `/metrics%3Fx`
/// would be served as `/metrics`, past a proxy rule that denies `/metrics`
/// (the proxy sees `/metrics?x`), and `/v1%2Fnotify` as `/v1/notify`.
enum HTTPTargetEscapes {
    /// Decodes the NUL-terminated `text` in place (the result is never
    /// longer) and returns its new length; the result is NUL-terminated too.
    static func decodeInPlace(_ text: UnsafeMutablePointer<UInt8>) -> Int {
        var read = 0
        var write = 0
        while text[read] != 0 {
            if text[read] == UInt8(ascii: "%"), let high = hexValue(text[read + 1]), let low = hexValue(text[read + 2]),
               case let byte = high << 4 | low, !keptEscaped(byte) {
                text[write] = byte
                read += 3
            } else {
                text[write] = text[read]
                read += 1
            }
            write += 1
        }
        text[write] = 0
        return write
    }

    /// The bytes left escaped: NUL and the delimiters of a target's parts.
    private static func keptEscaped(_ byte: UInt8) -> Bool {
        byte == 0 || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// The value of a hex digit; nil for anything else (the terminating NUL included).
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
