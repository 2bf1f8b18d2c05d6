/// A snapshot of what the FCM simulator has seen since it started or since
/// `resetStatistics()`: OAuth grants, and messages accepted and rejected.
public struct FCMSimulatorStatistics: Sendable, Equatable {
    /// Access tokens issued by the token endpoint.
    public var grantsIssued = 0
    /// Token-endpoint refusals per OAuth error (`invalid_grant`, …), and
    /// `unavailable` for the 503s of a token endpoint set down.
    public var grantsRefused: [String: Int] = [:]
    /// Messages answered 200 (validate-only dry runs excluded).
    public var acceptedTotal = 0
    /// Accepted messages per registration token (token targets only).
    public var acceptedPerToken: [String: Int] = [:]
    /// The `name` of every accepted message, in answer order.
    public var acceptedNames: [String] = []
    /// `validate_only` requests that passed.
    public var validatedOnly = 0
    /// Error answers of `messages:send`.
    public var rejectedTotal = 0
    /// Error answers per FcmError `errorCode`, or per `status` when the body
    /// carries no FcmError (`UNAUTHENTICATED` for a bad access token,
    /// `INVALID_ARGUMENT` for a JSON payload Google cannot parse, …).
    public var rejectedPerErrorCode: [String: Int] = [:]
    /// Connections whose TCP connection was accepted.
    public var connectionsAccepted = 0
    /// Connections closed because TLS or ALPN `h2` failed.
    public var connectionsRefused = 0
    /// Connections closed by the `dropConnectionAfterStreams` fault.
    public var connectionsDropped = 0
    /// GOAWAY frames sent by the `goAwayAfterStreams` fault.
    public var goAwaysSent = 0
    /// Connection windows widened by the `widensWindowOnlyWhenUsedUp`
    /// fault: each time, the client had used all of the window.
    public var windowsWidenedWhenUsedUp = 0
    /// Requests received but never answered (faults).
    public var unansweredStreams = 0
    /// Every accepted message (when `recordsMessages`).
    public var messages: [FCMSimulatorMessage] = []

    /// Empty statistics.
    public init() {}
}

/// A message the FCM simulator accepted, as it arrived.
public struct FCMSimulatorMessage: Sendable, Equatable {
    /// The name answered, `projects/{p}/messages/0:…`.
    public let name: String
    /// `message.token`, when the target is a device.
    public let token: String?
    /// `message.topic`, when the target is a topic.
    public let topic: String?
    /// `message.condition`, when the target is a condition.
    public let condition: String?
    /// The request body, byte for byte.
    public let body: [UInt8]
}
