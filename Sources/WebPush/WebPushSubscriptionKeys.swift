import OpenSSLCrypto

/// A push subscription's keys (RFC 8291 §2, the `keys` of the browser's
/// `PushSubscription.toJSON()`): the user agent's P-256 public key `p256dh`
/// as an uncompressed point, and the 16-byte authentication secret `auth`.
///
/// Checked when made: `p256dh` must be a point on P-256, `auth` 16 bytes.
public struct WebPushSubscriptionKeys: Sendable, Equatable {
    /// The user agent's public key, 65 bytes `0x04 ‖ X ‖ Y`.
    public let p256dh: [UInt8]
    /// The authentication secret, 16 bytes.
    public let auth: [UInt8]

    /// The length of `auth` RFC 8291 §3.2 specifies.
    public static let authLength = 16

    /// Keys from their bytes.
    /// - Throws: ``WebPushError/invalidSubscriptionKeys(reason:)``.
    public init(p256dh: [UInt8], auth: [UInt8]) throws(WebPushError) {
        guard auth.count == Self.authLength else {
            throw .invalidSubscriptionKeys(reason: "auth is \(auth.count) bytes; it must be \(Self.authLength)")
        }
        do {
            try P256KeyAgreementKey.validatePublicKey(p256dh)
        } catch let error {
            switch error {
            case let .invalidPublicKey(reason): throw .invalidSubscriptionKeys(reason: "p256dh: \(reason)")
            default: throw .crypto(error)
            }
        }
        self.p256dh = p256dh
        self.auth = auth
    }

    /// Keys as a subscription's JSON carries them: base64url, with or without padding.
    /// - Throws: ``WebPushError/invalidSubscriptionKeys(reason:)``.
    public init(p256dh: String, auth: String) throws(WebPushError) {
        guard let point = Base64URL.decode(p256dh, allowingPadding: true) else {
            throw .invalidSubscriptionKeys(reason: "p256dh is not base64url")
        }
        guard let secret = Base64URL.decode(auth, allowingPadding: true) else {
            throw .invalidSubscriptionKeys(reason: "auth is not base64url")
        }
        try self.init(p256dh: point, auth: secret)
    }
}
