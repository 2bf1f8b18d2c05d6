/// Unpadded base64url (RFC 4648 §5), the encoding of JWT parts.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let end = min(index + 3, bytes.count)
            var group: UInt32 = 0
            for offset in index..<index + 3 {
                group = group << 8 | UInt32(offset < end ? bytes[offset] : 0)
            }
            // n input bytes give n + 1 output characters.
            for position in 0...(end - index) {
                output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
            }
            index = end
        }
        return String(decoding: output, as: UTF8.self)
    }
}
