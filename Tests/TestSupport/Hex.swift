/// Hexadecimal test vectors as bytes, and bytes as hexadecimal for messages.
public enum Hex {
    /// The bytes of `text`, pairs of hexadecimal digits (white space ignored).
    /// Traps on anything else: a vector typed wrong is a broken test.
    public static func bytes(_ text: String) -> [UInt8] {
        let digits = text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }
        precondition(digits.count % 2 == 0, "odd number of hexadecimal digits")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(value(digits[index]) << 4 | value(digits[index + 1]))
        }
    }

    /// `bytes` as lowercase hexadecimal.
    public static func string(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    private static func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hexadecimal digit: \(digit)")
        }
    }
}
