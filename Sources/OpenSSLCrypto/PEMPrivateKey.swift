internal import COpenSSL

/// PEM password callback that refuses: without it, OpenSSL's default
/// callback would prompt on the terminal for an encrypted key.
private let refusePassword: @convention(c) (
    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
) -> Int32 = { _, _, _, _ in -1 }

/// Reads an unencrypted PEM private key into an `EVP_PKEY`, for the APNs
/// signing key (ES256) and the FCM service account's key (RS256): one
/// reader, so both refuse an encrypted key the same way and never prompt.
package enum PEMPrivateKey {
    /// Why a PEM private key could not be read (no key bytes in any reason).
    package enum Failure: Error {
        case empty
        case tooLarge
        case encrypted
        /// OpenSSL's reason, from its error queue (names routines, never key bytes).
        case unreadable(String)
    }

    /// The parsed key; the caller owns it (`EVP_PKEY_free`).
    package static func read(_ pem: [UInt8]) throws(Failure) -> OpaquePointer {
        OpenSSLErrors.clear()
        guard !pem.isEmpty else { throw .empty }
        guard pem.count <= Int(Int32.max) else { throw .tooLarge }
        if contains(pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----") { throw .encrypted }
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            // A read-only memory BIO over our buffer; it must not outlive this closure.
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, refusePassword, nil)
        }
        guard let key else { throw .unreadable(OpenSSLErrors.failure("PEM_read_bio_PrivateKey")) }
        return key
    }

    private static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard haystack.count >= pattern.count else { return false }
        for start in 0...(haystack.count - pattern.count)
        where haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
            return true
        }
        return false
    }
}
