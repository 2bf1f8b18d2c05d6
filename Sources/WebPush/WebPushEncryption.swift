public import OpenSSLCrypto

/// Web Push message encryption (RFC 8291) in the `aes128gcm` content coding
/// (RFC 8188), as an application server sends it, and its reverse, as a
/// user agent reads it (for the push service simulator and the tests).
///
/// Per message: a fresh P-256 sender key and a fresh 16-byte salt; the ECDH
/// secret with the subscription's `p256dh` and its `auth` secret give the
/// input keying material, from which HKDF-SHA256 derives the content key and
/// nonce; the plaintext and the `0x02` delimiter go out as one AES-128-GCM
/// record after the header `salt ‖ rs ‖ idlen ‖ keyid` (keyid = the sender's
/// public key). The body is therefore the plaintext plus 103 bytes.
///
/// Stateless: every function may run on any thread at once.
public enum WebPushEncryption {
    /// The record size written in the header: 4,096, as RFC 8291's example
    /// and the browsers' own senders use. One record always fits in it.
    public static let recordSize = 4096
    /// The largest body push services must accept (RFC 8030 §7.2).
    public static let maximumBodyLength = 4096
    /// Salt, record size, key id length and a 65-byte key id.
    public static let headerLength = 16 + 4 + 1 + 65
    /// The bytes a body adds to its plaintext: the header, the delimiter and the GCM tag.
    public static let overhead = headerLength + 1 + AES128GCM.tagLength
    /// The longest plaintext one message carries: 3,993 bytes (RFC 8291 §4).
    public static let maximumPlaintextLength = maximumBodyLength - overhead
    /// The salt's length.
    public static let saltLength = 16

    /// Encrypts `plaintext` for `subscription` with a fresh sender key and salt.
    /// - Throws: ``WebPushError/payloadTooLarge(bytes:limit:)`` over
    ///   ``maximumPlaintextLength``; ``WebPushError/crypto(_:)``.
    public static func encrypt(_ plaintext: [UInt8], for subscription: WebPushSubscriptionKeys) throws(WebPushError) -> [UInt8] {
        try checkLength(plaintext)
        let senderKey: P256KeyAgreementKey
        let salt: [UInt8]
        do {
            senderKey = try P256KeyAgreementKey.generate()
            salt = try SecureRandom.bytes(saltLength)
        } catch {
            throw .crypto(error)
        }
        return try encrypt(plaintext, for: subscription, senderKey: senderKey, salt: salt)
    }

    /// Encrypts with a given sender key and salt: for fixed test vectors
    /// (RFC 8291 Appendix A). Never reuse either for a second message.
    /// - Throws: ``WebPushError/invalidEncryptionInput(reason:)`` for a salt
    ///   that is not 16 bytes; as ``encrypt(_:for:)`` otherwise.
    public static func encrypt(_ plaintext: [UInt8], for subscription: WebPushSubscriptionKeys,
                               senderKey: P256KeyAgreementKey, salt: [UInt8]) throws(WebPushError) -> [UInt8] {
        try checkLength(plaintext)
        guard salt.count == saltLength else {
            throw .invalidEncryptionInput(reason: "the salt is \(salt.count) bytes; it must be \(saltLength)")
        }
        let keys = try ContentKeys(
            ecdhSecret: crypto { () throws(CryptoError) in try senderKey.sharedSecret(with: subscription.p256dh) },
            auth: subscription.auth, userAgentPublicKey: subscription.p256dh, applicationServerPublicKey: senderKey.publicKey,
            salt: salt)
        var record = plaintext
        record.append(0x02)  // the last (and only) record's delimiter, no further padding
        let sealed = try crypto { () throws(CryptoError) in try AES128GCM.seal(record, key: keys.contentKey, nonce: keys.nonce) }
        var body: [UInt8] = []
        body.reserveCapacity(headerLength + sealed.count)
        body += salt
        body += [UInt8(recordSize >> 24 & 0xFF), UInt8(recordSize >> 16 & 0xFF), UInt8(recordSize >> 8 & 0xFF), UInt8(recordSize & 0xFF)]
        body.append(UInt8(senderKey.publicKey.count))
        body += senderKey.publicKey
        body += sealed
        return body
    }

    private static func checkLength(_ plaintext: [UInt8]) throws(WebPushError) {
        guard plaintext.count <= maximumPlaintextLength else {
            throw .payloadTooLarge(bytes: plaintext.count, limit: maximumPlaintextLength)
        }
    }

    /// Runs a primitive, wrapping its error.
    static func crypto<T>(_ body: () throws(CryptoError) -> T) throws(WebPushError) -> T {
        do {
            return try body()
        } catch {
            throw .crypto(error)
        }
    }
}
