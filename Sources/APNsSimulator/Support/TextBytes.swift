import Glibc

/// Byte-level stand-ins for String comparisons, exact where bytes alone
/// cannot settle it.
///
/// Swift compares Strings by canonical equivalence, so two different byte
/// sequences can be equal Strings (U+212A KELVIN SIGN equals `K`), and
/// invalid UTF-8 decodes to U+FFFD. Two ASCII texts, though, are equal
/// Strings exactly when their bytes are equal: ASCII is already in normal
/// form and no ASCII scalar decomposes.
enum TextBytes {
    /// Whether every byte is ASCII.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Whether the two byte sequences, decoded as UTF-8 (invalid sequences
    /// as U+FFFD), are equal Strings. Bytes first; Strings only when a
    /// side is not ASCII.
    static func same(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        if equal(left, right) { return true }
        if isASCII(left), isASCII(right) { return false }
        return String(decoding: left, as: UTF8.self) == String(decoding: right, as: UTF8.self)
    }

    /// The UTF-8 length of the String the bytes decode to (each invalid
    /// sequence becomes U+FFFD, three bytes).
    static func decodedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        isASCII(bytes) ? bytes.count : String(decoding: bytes, as: UTF8.self).utf8.count
    }

    /// Byte-for-byte equality.
    static func equal(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        guard let a = left.baseAddress, let b = right.baseAddress else { return true }
        return memcmp(a, b, left.count) == 0
    }

    /// Byte-for-byte equality with a literal.
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        equal(bytes, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Whether `bytes` begins with `literal`.
    static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        return bytes.count >= count && equal(UnsafeBufferPointer(rebasing: bytes[..<count]), literal)
    }
}
