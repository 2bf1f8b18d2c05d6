internal import COpenSSL
internal import COpenSSLShims

/// An APNs token-signing key: an EC P-256 private key that makes ES256
/// signatures in the raw 64-byte R‖S form JWTs need (RFC 7518 §3.4).
///
/// Load it from the `.p8` file Apple gives out (PKCS#8 PEM), or make a
/// throwaway one with ``generate()`` for tests and the simulator demo. Keys of
/// any other type or curve are refused with ``ES256SigningKeyError/notECP256(found:)``;
/// encrypted PEM is refused (never prompts for a password).
///
/// Thread-safety: immutable after `init`, and safe to share between threads
/// and tasks; see the `@unchecked Sendable` note on the type.
///
/// Ownership: the instance owns one OpenSSL `EVP_PKEY`, freed in `deinit`,
/// which never leaves this type.
//
// @unchecked Sendable: every stored property is a `let`. The `EVP_PKEY` is
// fully built before `init` returns and is never mutated afterwards (no
// setters are called on it; signing uses a fresh `EVP_MD_CTX` per call), and
// OpenSSL 3 documents that threads may sign concurrently with one key as
// long as each uses its own context (openssl-threads(7)). The PEM strings are
// computed once in `init`.
public final class ES256SigningKey: @unchecked Sendable {
    /// The owned key; `sign` and the raw-form readers use it.
    let key: OpaquePointer

    /// The public half as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`),
    /// for a verifier such as the APNs simulator.
    public let publicKeyPEM: String

    /// The private key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`),
    /// the `.p8` format, for writing throwaway key files in tests and demos.
    /// Treat it as a secret.
    public let privateKeyPEM: String

    /// Loads a key from the text of a `.p8` file (PKCS#8 PEM; a SEC1
    /// `EC PRIVATE KEY` PEM is accepted as well).
    /// - Throws: ``ES256SigningKeyError``.
    public convenience init(pem: String) throws(ES256SigningKeyError) {
        try self.init(pem: Array(pem.utf8))
    }

    /// Loads a key from the bytes of a `.p8` file (PKCS#8 PEM; a SEC1
    /// `EC PRIVATE KEY` PEM is accepted as well).
    /// - Throws: ``ES256SigningKeyError``.
    public convenience init(pem: [UInt8]) throws(ES256SigningKeyError) {
        let key = try Self.readPrivateKey(pem)
        let pems = try Self.checkedPEMs(consuming: key)
        self.init(owning: key, publicKeyPEM: pems.publicKey, privateKeyPEM: pems.privateKey)
    }

    /// A new random P-256 key, for tests and the no-credentials simulator demo.
    /// - Throws: ``ES256SigningKeyError/openSSL(call:reason:)``.
    public static func generate() throws(ES256SigningKeyError) -> ES256SigningKey {
        OpenSSLErrors.clear()
        guard let key = pgw_evp_ec_gen_p256() else {
            throw ES256SigningKeyError.openSSL(call: "EVP_EC_gen(P-256)", reason: OpenSSLErrors.drain())
        }
        let pems = try checkedPEMs(consuming: key)
        return ES256SigningKey(owning: key, publicKeyPEM: pems.publicKey, privateKeyPEM: pems.privateKey)
    }

    init(owning key: OpaquePointer, publicKeyPEM: String, privateKeyPEM: String) {
        self.key = key
        self.publicKeyPEM = publicKeyPEM
        self.privateKeyPEM = privateKeyPEM
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Signs `message` with ECDSA P-256 over SHA-256 and returns the raw
    /// 64-byte signature R‖S (each half big-endian, left-padded to 32 bytes),
    /// the form JWS ES256 uses — not the DER that OpenSSL produces.
    /// - Throws: ``ES256SigningKeyError/openSSL(call:reason:)`` naming the failing call.
    public func sign(_ message: [UInt8]) throws(ES256SigningKeyError) -> [UInt8] {
        OpenSSLErrors.clear()
        let der = try derSignature(message)
        return try Self.rawSignature(fromDER: der)
    }

    /// EVP_DigestSign with SHA-256: an ASN.1 DER `ECDSA-Sig-Value`.
    private func derSignature(_ message: [UInt8]) throws(ES256SigningKeyError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw ES256SigningKeyError.openSSL(call: "EVP_MD_CTX_new", reason: OpenSSLErrors.drain())
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw ES256SigningKeyError.openSSL(call: "EVP_DigestSignInit", reason: OpenSSLErrors.drain())
        }
        // EVP_PKEY_get_size is the largest signature this key can make (72 for P-256).
        var length = Int(EVP_PKEY_get_size(key))
        guard length > 0 else {
            throw ES256SigningKeyError.openSSL(call: "EVP_PKEY_get_size", reason: OpenSSLErrors.drain())
        }
        var der = [UInt8](repeating: 0, count: length)
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &length, input.baseAddress, input.count)
        }
        guard status == 1 else {
            throw ES256SigningKeyError.openSSL(call: "EVP_DigestSign", reason: OpenSSLErrors.drain())
        }
        return Array(der.prefix(length))
    }

    /// DER → R‖S: d2i_ECDSA_SIG, ECDSA_SIG_get0, BN_bn2binpad(…, 32) twice.
    private static func rawSignature(fromDER der: [UInt8]) throws(ES256SigningKeyError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else {
            throw ES256SigningKeyError.openSSL(call: "d2i_ECDSA_SIG", reason: OpenSSLErrors.drain())
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        guard let r, let s else {
            throw ES256SigningKeyError.openSSL(call: "ECDSA_SIG_get0", reason: OpenSSLErrors.drain())
        }
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { out in
            (BN_bn2binpad(r, out.baseAddress, 32), BN_bn2binpad(s, out.baseAddress! + 32, 32))
        }
        guard written.0 == 32, written.1 == 32 else {
            throw ES256SigningKeyError.openSSL(call: "BN_bn2binpad", reason: OpenSSLErrors.drain())
        }
        return raw
    }
}
