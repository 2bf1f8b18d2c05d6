/// How APNs answered one notification. A rejection is a value (the token may
/// be dead, the request may be wrong); a transport failure is a thrown
/// `TransportError` instead.
public enum APNsOutcome: Sendable, Equatable {
    /// 200: APNs took the notification; `apnsID` is the id it logged it under.
    case accepted(apnsID: String)
    case rejected(APNsRejection)
}

/// A non-200 answer from APNs, classified.
public struct APNsRejection: Sendable, Equatable {
    public var status: Int
    public var reason: APNsReason
    /// For 410: when APNs learned the token was no longer valid (ms since epoch).
    public var timestamp: Int64?
    public var apnsID: String?
    /// What to do about it; the client may narrow it (e.g. a token source's verdict).
    public var action: APNsAction
    /// What the client learnt beyond Apple's reason, for an operator: why a
    /// provider-token refusal is a configuration problem ("check the
    /// clock" for an `ExpiredProviderToken` on a token younger than 20
    /// minutes). Nil for most rejections.
    public var detail: String?

    public init(status: Int, reason: APNsReason, timestamp: Int64? = nil, apnsID: String? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        action = reason.action(status: status)
    }

    /// With the action already decided (a reason known not to be in Apple's table).
    init(status: Int, reason: APNsReason, timestamp: Int64?, apnsID: String?, action: APNsAction) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.action = action
    }

    /// True when the caller must delete the device token.
    public var dropsToken: Bool { action == .dropToken }
}
