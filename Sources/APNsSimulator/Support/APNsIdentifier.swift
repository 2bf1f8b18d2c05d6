/// The `apns-id` format: a UUID written as 32 lowercase hex digits in
/// 8-4-4-4-12 groups (PROTOCOLS.md A2).
enum APNsIdentifier {
    /// Whether `text` is exactly a lowercase 8-4-4-4-12 UUID.
    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    /// `isValid` on bytes.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    /// A new random (version 4) UUID in the lowercase form APNs returns.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (offset, byte) in bytes.enumerated() {
            if offset == 4 || offset == 6 || offset == 8 || offset == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
