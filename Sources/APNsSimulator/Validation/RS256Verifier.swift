import COpenSSL

/// Verifies an RS256 (RSASSA-PKCS1-v1_5 with SHA-256) JWT signature, as
/// Google's token endpoint does for a service account's assertion.
enum RS256Verifier {
    /// Whether `signature` signs `message` under the RSA public key `key`.
    static func verify(signature: [UInt8], message: [UInt8], key: OwnedKey) -> Bool {
        defer { OpenSSLFailure.drainQueue() }
        guard key.isRSA, !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // An RSA key's default padding for EVP_DigestVerify is PKCS #1 v1.5.
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
