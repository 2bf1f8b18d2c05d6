import COpenSSL
import COpenSSLShims

/// Owns one `EVP_PKEY` and frees it in `deinit`.
///
/// Thread-confined like every other handle owner here: created, used and
/// freed by one thread; the one exception, a `ProviderKeyring`'s keys, are
/// shared read-only (see there).
final class OwnedKey {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A fresh P-256 key pair.
    static func generateP256() throws(APNsSimulatorError) -> OwnedKey {
        guard let key = pgw_evp_ec_gen_p256() else { throw OpenSSLFailure.error("EVP_EC_gen") }
        return OwnedKey(taking: key)
    }

    /// The private key in `pem` (PKCS#8 or traditional).
    static func privateKey(pem: String) throws(APNsSimulatorError) -> OwnedKey {
        try PEM.withBIO(pem) { bio throws(APNsSimulatorError) in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw OpenSSLFailure.error("PEM_read_bio_PrivateKey")
            }
            return OwnedKey(taking: key)
        }
    }

    /// The public key in `pem`: a `PUBLIC KEY` block, or the public half of a
    /// `PRIVATE KEY` block (so an APNs `.p8` file can be given as is).
    static func publicKey(pem: String) throws(APNsSimulatorError) -> OwnedKey {
        let parsed: OpaquePointer? = PEM.withBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        if let parsed { return OwnedKey(taking: parsed) }
        OpenSSLFailure.drainQueue()
        do {
            return try privateKey(pem: pem)
        } catch {
            throw APNsSimulatorError(operation: "PEM_read_bio_PUBKEY", detail: "no PUBLIC KEY or PRIVATE KEY block could be read")
        }
    }

    /// A fresh RSA key pair of `bits` bits (for throwaway service accounts).
    static func generateRSA(bits: UInt32) throws(APNsSimulatorError) -> OwnedKey {
        guard let key = pgw_evp_rsa_gen(bits) else { throw OpenSSLFailure.error("EVP_RSA_gen") }
        return OwnedKey(taking: key)
    }

    /// Whether this is an RSA key (RS256 needs one).
    var isRSA: Bool {
        EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA
    }

    /// Whether this is an EC key on P-256, the only curve ES256 uses.
    var isP256: Bool {
        EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC && EVP_PKEY_get_bits(pointer) == 256
    }

    /// The private key as PKCS#8 PEM.
    func privateKeyPEM() throws(APNsSimulatorError) -> String {
        try PEM.write("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as a `PUBLIC KEY` (SubjectPublicKeyInfo) PEM block.
    func publicKeyPEM() throws(APNsSimulatorError) -> String {
        try PEM.write("PEM_write_bio_PUBKEY") { bio in PEM_write_bio_PUBKEY(bio, pointer) }
    }
}
