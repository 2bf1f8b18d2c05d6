public import PayloadBuilder

/// The final result for one recipient of an event, as `/v1/notify` reports it.
public struct RecipientResult: Sendable, Equatable {
    /// API.md's per-device `status`, with its wire spelling.
    public enum Status: String, Sendable, CaseIterable {
        case sent
        case invalidToken = "invalid_token"
        case failed
        case skipped
    }

    public var platform: Platform
    public var token: String
    public var status: Status
    public var providerID: String?
    public var reason: String?
    /// For `failed`: would a later retry of the event have a chance?
    public var retryable: Bool?
    /// For `invalid_token`, when the provider said so: since when the token
    /// has not been valid, in milliseconds since the epoch (APNs 410
    /// `Unregistered`). A caller that saw the device register this token
    /// again after that time keeps it (PROTOCOLS.md A4).
    public var invalidSince: Int64?

    public init(platform: Platform, token: String, status: Status, providerID: String? = nil, reason: String? = nil,
                retryable: Bool? = nil, invalidSince: Int64? = nil) {
        self.platform = platform
        self.token = token
        self.status = status
        self.providerID = providerID
        self.reason = reason
        self.retryable = retryable
        self.invalidSince = invalidSince
    }

    /// Done for good: a retry of the event will not send it again.
    public var isSettled: Bool { status != .failed }
}
