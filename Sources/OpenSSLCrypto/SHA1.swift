internal import COpenSSL

/// SHA-1 through OpenSSL, for names rather than security: Redis names a
/// Lua script by the SHA-1 of its text (`EVALSHA`).
package enum SHA1 {
    /// The digest of `bytes` as 40 lowercase hexadecimal digits.
    package static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        // EVP_Digest cannot fail for SHA-1 short of memory; the digest is then all zeros
        // and EVALSHA answers NOSCRIPT, which `RedisScript` follows with EVAL.
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha1(), nil)
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
