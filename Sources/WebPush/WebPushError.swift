public import OpenSSLCrypto

/// Why a Web Push message could not be encrypted or decrypted.
///
/// `invalidSubscriptionKeys` and `payloadTooLarge` are permanent for that
/// subscription or payload: sending again will not help.
/// `malformedBody` and `decryptionFailed` are the receiving side's verdicts
/// (the simulator's, a test's) on a body that is not a valid `aes128gcm`
/// Web Push message for this subscription.
public enum WebPushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The subscription's `p256dh` or `auth` is unusable; `reason` says which and why.
    case invalidSubscriptionKeys(reason: String)
    /// The plaintext is longer than one message can carry: push services take
    /// bodies of at most 4,096 bytes (RFC 8030 §7.2), which leaves `limit`
    /// bytes of plaintext (RFC 8291 §4).
    case payloadTooLarge(bytes: Int, limit: Int)
    /// An injected salt or sender key is not of the form the scheme needs.
    case invalidEncryptionInput(reason: String)
    /// The body is not an `aes128gcm` message of one record as RFC 8291 sends
    /// it (short header, wrong key id length, several records, no delimiter…).
    case malformedBody(reason: String)
    /// The record does not authenticate under the keys derived for this
    /// subscription: the wrong subscription, or an altered body.
    case decryptionFailed
    /// A cryptographic primitive failed.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case let .invalidSubscriptionKeys(reason): "invalid Web Push subscription keys: \(reason)"
        case let .payloadTooLarge(bytes, limit):
            "the Web Push payload is \(bytes) bytes; at most \(limit) fit in one message (push services take 4096-byte bodies)"
        case let .invalidEncryptionInput(reason): "invalid Web Push encryption input: \(reason)"
        case let .malformedBody(reason): "not an aes128gcm Web Push message: \(reason)"
        case .decryptionFailed: "the Web Push message does not decrypt with this subscription's keys"
        case let .crypto(error): "Web Push cryptography failed: \(error)"
        }
    }
}
