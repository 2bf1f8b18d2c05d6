/// Derives the `apns-id` of one notification from its event id and device
/// token: 32 lowercase hex digits as 8-4-4-4-12, shaped like a version-4 UUID.
///
/// Deriving rather than drawing it makes a re-sent notification carry the
/// same id (logs and Apple's console line up) and keeps rendering pure.
public enum APNsID {
    public static func derive(eventID: String, token: String) -> String {
        var input = Array(eventID.utf8)
        input.append(0)
        input.append(contentsOf: token.utf8)
        var bytes = Array(SHA256.digest(input).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array(Hex.lowercase(bytes).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            out.append(digit)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
