internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`,
/// seeded from the operating system): salts, keys, nonces.
public enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: ``CryptoError/openSSL(call:reason:)`` if the generator cannot
    ///   produce them (it is never left to return predictable bytes).
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw .invalidArgument(reason: "cannot draw \(count) random bytes")
        }
        guard count > 0 else { return [] }
        OpenSSLErrors.clear()
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw .failed("RAND_bytes") }
        return bytes
    }
}
