/// Base64url without padding (RFC 4648 §5, as JWS requires): the encoding
/// of JWT parts, for APNs provider tokens and the FCM OAuth assertion, and
/// of Web Push's keys (a subscription's `p256dh` and `auth`, VAPID keys).
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let chunk = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical base64url without padding; nil for anything else
    /// (a symbol outside the alphabet, a length no encoding has, non-zero
    /// leftover bits). With `allowingPadding`, up to two trailing `=` are
    /// read past as well: some browsers' subscription JSON and some tools pad.
    package static func decode(_ text: String, allowingPadding: Bool = false) -> [UInt8]? {
        var symbols = Array(text.utf8)
        if allowingPadding {
            while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        }
        guard symbols.count % 4 != 1, text.utf8.count - symbols.count <= 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            guard let value = sextet(symbol) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The leftover bits of the last symbol must be zero (a canonical encoding).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func sextet(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
