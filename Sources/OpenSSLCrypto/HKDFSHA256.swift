internal import COpenSSL

/// HKDF with SHA-256 (RFC 5869), built on OpenSSL's HMAC: the key
/// derivation of Web Push message encryption (RFC 8291 §3.3, RFC 8188 §2.2).
public enum HKDFSHA256 {
    /// The largest output `expand` may produce: 255 blocks of 32 bytes.
    public static let maximumOutputLength = 255 * 32

    /// HKDF-Extract: the pseudorandom key `HMAC-SHA256(salt, ikm)` (32 bytes).
    public static func extract(salt: [UInt8], inputKeyingMaterial ikm: [UInt8]) throws(CryptoError) -> [UInt8] {
        try mac(key: salt, message: ikm)
    }

    /// HKDF-Expand: `length` bytes of `T(1) ‖ T(2) ‖ …`, where
    /// `T(i) = HMAC-SHA256(prk, T(i-1) ‖ info ‖ i)`.
    /// - Throws: ``CryptoError/invalidArgument(reason:)`` for a `length` outside
    ///   1…``maximumOutputLength`` or a `prk` shorter than a hash.
    public static func expand(pseudorandomKey prk: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard length > 0, length <= maximumOutputLength else {
            throw .invalidArgument(reason: "HKDF-SHA256 output of \(length) bytes (1…\(maximumOutputLength))")
        }
        guard prk.count >= 32 else {
            throw .invalidArgument(reason: "an HKDF-SHA256 pseudorandom key is at least 32 bytes, got \(prk.count)")
        }
        var output: [UInt8] = []
        output.reserveCapacity(length + 32)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = try mac(key: prk, message: block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }

    /// Extract then expand.
    public static func deriveKey(inputKeyingMaterial ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try expand(pseudorandomKey: extract(salt: salt, inputKeyingMaterial: ikm), info: info, length: length)
    }

    /// One HMAC-SHA256; unlike ``HMACSHA256/mac(key:message:)`` a failure
    /// throws, since a key derived from a zeroed MAC would be predictable.
    private static func mac(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count <= Int(Int32.max) else { throw .invalidArgument(reason: "HMAC key too long") }
        OpenSSLErrors.clear()
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // An empty salt is a zero-length key; HMAC() needs a non-null pointer for it.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBytes { keyPointer in
            HMAC(EVP_sha256(), keyPointer.baseAddress, Int32(key.count), message, message.count, &digest, &length)
        }
        guard result != nil, length == 32 else { throw .failed("HMAC(SHA-256)") }
        return digest
    }
}
