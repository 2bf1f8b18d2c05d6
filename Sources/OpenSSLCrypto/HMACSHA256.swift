internal import COpenSSL

/// HMAC-SHA256 through OpenSSL: the feedback webhook's signature.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // One-shot HMAC(): it fails only without memory, leaving the digest
        // zeros, which no receiver accepts (the delivery is then retried).
        key.withUnsafeBytes { keyBytes in
            _ = HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(key.count), message, message.count, &digest, &length)
        }
        return digest
    }

    /// `mac` as 64 lowercase hexadecimal digits.
    public static func hex(key: [UInt8], message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: mac(key: key, message: message).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
