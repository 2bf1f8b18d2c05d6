public import HTTP2Client
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
    /// What to do about it, from Apple's table; the client may narrow it: a
    /// provider-token refusal the token source judges a configuration
    /// problem carries what to check ("check the clock" for an
    /// `ExpiredProviderToken` on a token younger than 20 minutes).
    public var verdict: ProviderVerdict

    public init(status: Int, reason: APNsReason, timestamp: Int64? = nil, apnsID: String? = nil) {
        self.init(status: status, reason: reason, timestamp: timestamp, apnsID: apnsID, verdict: reason.verdict(status: status))
    }

    /// With the verdict already decided (a reason known not to be in
    /// Apple's table); a dead token's `since` is the answer's `timestamp`.
    init(status: Int, reason: APNsReason, timestamp: Int64?, apnsID: String?, verdict: ProviderVerdict) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.verdict = verdict.dropsToken ? .dropToken(since: timestamp) : verdict
    }

    /// True when the caller must delete the device token.
    public var dropsToken: Bool { verdict.dropsToken }
}
