/// Percent-decoding of a request target, for libmicrohttpd's unescape
/// callback: `%HH` becomes its byte, except `%00` (a NUL would end the C
/// string the router reads) and malformed escapes, which stay as written.
enum HTTPTargetEscapes {
    /// Decodes the NUL-terminated `text` in place (the result is never
    /// longer) and returns its new length; the result is NUL-terminated too.
    static func decodeInPlace(_ text: UnsafeMutablePointer<UInt8>) -> Int {
        var read = 0
        var write = 0
        while text[read] != 0 {
            if text[read] == UInt8(ascii: "%"), let high = hexValue(text[read + 1]), let low = hexValue(text[read + 2]),
               high | low != 0 {
                text[write] = high << 4 | low
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
