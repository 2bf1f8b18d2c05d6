import COpenSSL

/// Verifies an ES256 (ECDSA P-256 with SHA-256) JWT signature.
///
/// JWTs carry the raw 64-byte `R‖S` form (RFC 7518 §3.4); OpenSSL verifies
/// DER, so the two halves become an `ECDSA_SIG` (`ECDSA_SIG_set0`) and are
/// re-encoded with `i2d_ECDSA_SIG` before `EVP_DigestVerify`.
enum ES256Verifier {
    /// Whether `signature` (raw R‖S) signs `message` under `key`.
    static func verify(signature: [UInt8], message: [UInt8], key: OwnedKey) -> Bool {
        defer { OpenSSLFailure.drainQueue() }
        guard signature.count == 64, let der = derSignature(rawRS: signature) else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    /// The DER `ECDSA-Sig-Value` for a raw 64-byte R‖S signature.
    static func derSignature(rawRS: [UInt8]) -> [UInt8]? {
        guard rawRS.count == 64,
              let r = BN_bin2bn(rawRS, 32, nil) else { return nil }
        guard let s = rawRS[32...].withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard let sig = ECDSA_SIG_new() else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        defer { ECDSA_SIG_free(sig) }
        // On success ECDSA_SIG_set0 owns r and s.
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        return written == length ? der : nil
    }
}
