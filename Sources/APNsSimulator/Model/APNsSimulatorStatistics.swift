/// A snapshot of what the simulator has seen since it started or since
/// `resetStatistics()`: enough to prove "nothing lost, nothing sent twice".
public struct APNsSimulatorStatistics: Sendable, Equatable {
    /// Requests answered 200 (validated, or scripted success).
    public var acceptedTotal = 0
    /// Accepted requests per device token (lowercased).
    public var acceptedPerToken: [String: Int] = [:]
    /// Requests answered with an error status.
    public var rejectedTotal = 0
    /// Error answers per reason, e.g. `["BadDeviceToken": 2]`.
    public var rejectedPerReason: [String: Int] = [:]
    /// Connections whose TCP connection was accepted.
    public var connectionsAccepted = 0
    /// Connections closed because the client did not offer ALPN `h2` (or the handshake failed).
    public var connectionsRefused = 0
    /// Connections closed by `dropConnectionAfterStreams`.
    public var connectionsDropped = 0
    /// GOAWAY frames sent by `goAwayAfterStreams`, or for a stream opened beyond the limit.
    public var goAwaysSent = 0
    /// Requests received but never answered: silent mode, a dropped
    /// connection, or streams above a GOAWAY's last-stream-id.
    public var unansweredStreams = 0
    /// Connection windows widened by the `widensWindowOnlyWhenUsedUp`
    /// fault: each time, the client had used all of the window.
    public var windowsWidenedWhenUsedUp = 0
    /// The apns-id of every accepted notification, in answer order
    /// (when `recordsAcceptedIDs`).
    public var acceptedIDs: [String] = []
    /// Every accepted notification (when `recordsNotifications`).
    public var notifications: [APNsSimulatorNotification] = []

    /// Empty statistics.
    public init() {}

    /// Apns-ids accepted more than once: empty when nothing was sent twice.
    public var duplicateAcceptedIDs: [String] {
        var seen = Set<String>()
        var duplicates: [String] = []
        for id in acceptedIDs where !seen.insert(id).inserted {
            duplicates.append(id)
        }
        return duplicates
    }
}
