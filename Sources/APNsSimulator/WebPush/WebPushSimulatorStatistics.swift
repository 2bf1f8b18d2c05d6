/// A snapshot of what the web push simulator has seen since it started or
/// since `resetStatistics()`.
public struct WebPushSimulatorStatistics: Sendable, Equatable {
    /// Messages answered 201.
    public var acceptedTotal = 0
    /// Accepted messages per subscription id.
    public var acceptedPerSubscription: [String: Int] = [:]
    /// Error answers, validation's and scripted ones.
    public var rejectedTotal = 0
    /// Error answers per reason (`BadJWTAudience`, `Gone`, …).
    public var rejectedPerReason: [String: Int] = [:]
    /// Connections whose TCP connection was accepted.
    public var connectionsAccepted = 0
    /// Connections closed because TLS or ALPN failed.
    public var connectionsRefused = 0
    /// Connections closed by the `dropConnectionAfterStreams` fault.
    public var connectionsDropped = 0
    /// GOAWAY frames sent by the `goAwayAfterStreams` fault.
    public var goAwaysSent = 0
    /// Connection windows widened by the `widensWindowOnlyWhenUsedUp` fault.
    public var windowsWidenedWhenUsedUp = 0
    /// Requests received but never answered (faults).
    public var unansweredStreams = 0
    /// Every accepted message, in answer order (when `recordsMessages`).
    public var messages: [WebPushSimulatorMessage] = []

    /// Empty statistics.
    public init() {}
}

/// A message the simulator accepted: what the browser's service worker
/// would get in its `push` event, and how it was sent.
public struct WebPushSimulatorMessage: Sendable, Equatable {
    /// The subscription it was sent to.
    public let subscriptionID: String
    /// The id in the answered `Location` (`/message/<id>`).
    public let messageID: String
    /// The decrypted payload (empty for a message sent without a body).
    public let plaintext: [UInt8]
    /// The `TTL` header, in seconds.
    public let ttl: Int
    /// The `Urgency` header, when sent.
    public let urgency: String?
    /// The `Topic` header, when sent.
    public let topic: String?
    /// The VAPID JWT's `sub`.
    public let vapidSubject: String
    /// The VAPID `k` parameter as sent (base64url).
    public let vapidPublicKey: String
    /// The body's size as received (encrypted).
    public let bodySize: Int
    /// When it was accepted, by the configuration's clock.
    public let arrival: Double
    /// The 1-based number of the connection it came on.
    public let connectionNumber: Int

    /// The plaintext as UTF-8 text.
    public var text: String { String(decoding: plaintext, as: UTF8.self) }
}
