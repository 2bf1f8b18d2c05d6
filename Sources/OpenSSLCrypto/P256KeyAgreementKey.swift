internal import COpenSSL
internal import COpenSSLShims

/// An EC P-256 private key for Diffie-Hellman key agreement (ECDH, SEC 1
/// §3.3.1): Web Push's per-message sender key and, in the simulator and the
/// tests, a subscription's browser-side key (RFC 8291 §3.1).
///
/// The public half travels as the 65-byte uncompressed point; the shared
/// secret is the 32-byte X coordinate of the product. A peer's point is
/// refused unless it lies on the curve (an invalid-curve point would leak
/// bits of the private key).
///
/// Ownership: owns one `EVP_PKEY`, freed in `deinit`, which never leaves
/// this type.
//
// @unchecked Sendable: the stored properties are `let`s; the `EVP_PKEY` is
// fully built in `init` and never mutated afterwards (no setter is called
// on it), and every derivation uses its own `EVP_PKEY_CTX`, which OpenSSL 3
// documents as safe for concurrent use of one unmodified key
// (openssl-threads(7)).
public final class P256KeyAgreementKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// The public key: the uncompressed point `0x04 ‖ X ‖ Y` (65 bytes).
    public let publicKey: [UInt8]

    /// A new random key pair (OpenSSL's DRBG).
    /// - Throws: ``CryptoError/openSSL(call:reason:)``.
    public static func generate() throws(CryptoError) -> P256KeyAgreementKey {
        OpenSSLErrors.clear()
        guard let key = pgw_evp_ec_gen_p256() else { throw .failed("EVP_EC_gen(P-256)") }
        return try P256KeyAgreementKey(owning: key)
    }

    /// The key pair of a known 32-byte private scalar (big-endian), its
    /// public point derived: for fixed test vectors and stored keys.
    /// - Throws: ``CryptoError/invalidPrivateKey(reason:)`` for a scalar of the
    ///   wrong length or outside 1…n−1.
    public convenience init(rawPrivateKey: [UInt8]) throws(CryptoError) {
        try self.init(owning: P256Key.keyPair(scalar: rawPrivateKey))
    }

    /// Takes ownership of `key` (freed here if reading its point fails).
    private init(owning key: OpaquePointer) throws(CryptoError) {
        do {
            publicKey = try P256Key.point(of: key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The private scalar (32 bytes, big-endian). A secret: for tests, the
    /// simulator's fixtures and key generation tools.
    public func rawPrivateKey() throws(CryptoError) -> [UInt8] {
        try P256Key.scalar(of: key)
    }

    /// Checks that `publicKey` is an uncompressed point of P-256 (65 bytes,
    /// `0x04`, on the curve, not infinity), as ``sharedSecret(with:)`` will.
    /// - Throws: ``CryptoError/invalidPublicKey(reason:)``.
    public static func validatePublicKey(_ publicKey: [UInt8]) throws(CryptoError) {
        EVP_PKEY_free(try P256Key.publicKey(point: publicKey))
    }

    /// The ECDH shared secret with a peer's uncompressed public point: the
    /// 32-byte X coordinate of (our scalar × their point).
    /// - Throws: ``CryptoError/invalidPublicKey(reason:)`` when `peerPublicKey`
    ///   is not a point of P-256; ``CryptoError/openSSL(call:reason:)``.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let peer = try P256Key.publicKey(point: peerPublicKey)
        defer { EVP_PKEY_free(peer) }
        OpenSSLErrors.clear()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw .failed("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw .failed("EVP_PKEY_derive_init") }
        // validate_peer = 1: OpenSSL checks the peer key once more (a full public-key check).
        guard EVP_PKEY_derive_set_peer_ex(context, peer, 1) == 1 else {
            throw .invalidPublicKey(reason: OpenSSLErrors.failure("EVP_PKEY_derive_set_peer_ex"))
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length == P256Key.scalarLength else {
            throw .failed("EVP_PKEY_derive(length)")
        }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == P256Key.scalarLength else {
            throw .failed("EVP_PKEY_derive")
        }
        return secret
    }
}
