/// What a push provider's refusal of one notification calls for: the one
/// vocabulary of every provider client (APNs, FCM) and of the gateway that
/// acts on their answers. A client decides it from the provider's reason
/// and status (Apple's table, PROTOCOLS.md A5; Google's error codes, B4)
/// and may narrow it: a credential refused again after a fresh one is a
/// configuration error.
///
/// A refusal is a value; a transport failure (no answer) is a
/// `TransportError` instead.
public enum ProviderVerdict: Sendable, Equatable {
    /// The device token is dead: the caller must delete it; never retried.
    /// `since`: when the provider says it stopped being valid (APNs 410's
    /// `timestamp`, milliseconds since the epoch), so that a caller keeps a
    /// token its app registered again after that.
    case dropToken(since: Int64?)
    /// Try again later: after `after` when the provider said so
    /// (`Retry-After`), else with back-off and jitter.
    case retry(after: Duration?)
    /// Our credential (an APNs provider token, an FCM access token) was
    /// refused as stale: the client gets a fresh one and sends once more.
    /// Left to the caller when no fresh one was made: then it is `retry`.
    case refreshCredential
    /// Our configuration for this provider is wrong (credentials, topic,
    /// project): an operator must fix it; retrying will not help.
    /// `detail`: what to check beyond the reason, when the client or the
    /// provider said more (for the operator's log, never a key or token).
    case configuration(detail: String?)
    /// Final for this notification: the request is refused as sent (too
    /// large, forbidden, a header the gateway got wrong).
    case final

    /// Whether sending the same notification again later may succeed.
    public var isRetryable: Bool {
        switch self {
        case .retry, .refreshCredential: true
        case .dropToken, .configuration, .final: false
        }
    }

    /// True when the caller must delete the device token.
    public var dropsToken: Bool {
        if case .dropToken = self { return true }
        return false
    }
}
