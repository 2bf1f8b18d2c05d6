/// The URL- and filename-safe base64 alphabet of RFC 4648 §5 ("base64url"),
/// as web push uses it: subscription keys (RFC 8291 §3.2, written by
/// browsers without padding) and the `Topic` header (RFC 8030 §5.4).
///
/// The project's one base64url codec: `OpenSSLCrypto.Base64URL` is its
/// interface for the key owners (JWTs, VAPID, subscription keys).
package enum WebSafeBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded, without padding.
    package static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(buffer >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Why a text cannot be decoded.
    package enum Problem: Error, Equatable {
        /// A byte outside the alphabet (`+` and `/` included: those are base64, not base64url).
        case notInAlphabet
        /// One character left over (no whole byte), or padding that does not end a group of four.
        case badLength
        /// The unused low bits of the last character are not zero.
        case nonCanonical
    }

    /// The bytes `text` encodes, unpadded or with `=` padding to a multiple
    /// of four characters; a problem otherwise.
    package static func decode(_ text: Span<UInt8>) -> Result<[UInt8], Problem> {
        var count = text.count
        var padding = 0
        while count > 0, text[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        if padding > 0, padding > 2 || text.count % 4 != 0 { return .failure(.badLength) }
        if count % 4 == 1 { return .failure(.badLength) }
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for offset in 0..<count {
            guard let value = sextet(text[offset]) else { return .failure(.notInAlphabet) }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        if bits > 0, buffer & ((1 << UInt32(bits)) - 1) != 0 { return .failure(.nonCanonical) }
        return .success(out)
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
