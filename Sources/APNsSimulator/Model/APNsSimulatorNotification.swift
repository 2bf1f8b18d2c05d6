/// A notification the simulator accepted (answered 200), as it arrived.
public struct APNsSimulatorNotification: Sendable, Equatable {
    /// The device token from `:path`, as sent.
    public let deviceToken: String
    /// The `apns-id` answered: the client's, or the one the simulator made.
    public let apnsID: String
    /// Whether the client sent the `apns-id` (false: the simulator generated it).
    public let apnsIDWasSent: Bool
    /// `apns-topic`.
    public let topic: String
    /// `apns-push-type`, when sent.
    public let pushType: String?
    /// `apns-priority` (10 when not sent).
    public let priority: Int
    /// `apns-expiration` in epoch seconds, when sent.
    public let expiration: Int64?
    /// `apns-collapse-id`, when sent.
    public let collapseID: String?
    /// The JSON payload bytes.
    public let payload: [UInt8]
    /// Which accepted connection (1-based, in accept order) carried it.
    public let connectionNumber: Int
    /// The HTTP/2 stream that carried it.
    public let streamID: Int
    /// The header fields sent as HPACK literals never indexed (APNs asks for
    /// `:path`, `authorization` and the per-request values to stay out of
    /// its small dynamic table).
    public let neverIndexedHeaders: Set<String>
    /// The provider token (JWT) the request carried, which the simulator
    /// verified: which token each client presented (kept only when
    /// `recordsNotifications`, as the rest of the record).
    public let providerToken: String
}
