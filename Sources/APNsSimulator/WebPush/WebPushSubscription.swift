/// A subscription the web push simulator made, as a browser's
/// `PushSubscription.toJSON()` hands it to the application:
/// `{"endpoint", "keys": {"p256dh", "auth"}}`.
///
/// The simulator keeps the private key behind `p256dh` to decrypt what is
/// sent to `endpoint`.
public struct WebPushSubscription: Sendable, Equatable {
    /// The random id at the end of the endpoint's path.
    public let id: String
    /// `https://127.0.0.1:PORT/push/<id>`: where messages are POSTed.
    public let endpoint: String
    /// The user agent's P-256 public key: base64url, uncompressed (65 bytes).
    public let p256dh: String
    /// The 16-byte authentication secret, base64url.
    public let auth: String
}

/// What the simulator keeps of a subscription: its keys, the
/// application server key it was restricted to, and whether it is gone.
struct WebPushSubscriptionState: Sendable {
    /// The private key, PKCS#8 PEM (each connection parses it once).
    let privateKeyPEM: String
    /// The public point, 65 bytes.
    let publicPoint: [UInt8]
    let authSecret: [UInt8]
    /// The `applicationServerKey` given at subscription (a 65-byte point):
    /// only that VAPID key may send. `nil`: any key.
    let applicationServerKey: [UInt8]?
    /// Unsubscribed or expired: every send answers 410.
    var isGone = false
}
