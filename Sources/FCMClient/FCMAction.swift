/// What the gateway should do about an FCM rejection (PROTOCOLS.md B4).
public enum FCMAction: Sendable, Equatable {
    /// The registration token is dead or not ours: tell the caller to delete
    /// it. Never retry.
    case dropToken
    /// Try again later: after `after` when FCM sent `Retry-After`, else with
    /// exponential back-off and jitter.
    case retry(after: Duration?)
    /// Credentials or project are wrong (our OAuth token refused even after a
    /// fresh one, FCM's APNs or web-push credential refused, an unknown
    /// project): alert an operator; retrying will not help.
    case configurationError
    /// Final for this message (the request is invalid as sent).
    case doNotRetry

    /// Whether sending the same message again later may succeed.
    public var isRetryable: Bool {
        if case .retry = self { return true }
        return false
    }
}

extension FCMErrorCode {
    /// The action for this code, per PROTOCOLS.md B4:
    ///
    /// - UNREGISTERED, SENDER_ID_MISMATCH → drop the token;
    /// - INVALID_ARGUMENT → drop the token only when `tokenIsInvalid` (the
    ///   message says the registration token is not valid), else do not retry;
    /// - QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL → retry, after `retryAfter`;
    /// - THIRD_PARTY_AUTH_ERROR (APNS_AUTH_ERROR) → configuration error;
    /// - UNSPECIFIED_ERROR and unknown codes → by status: 429 and 5xx retry,
    ///   401/403/404 are configuration errors, the rest are final.
    public func action(status: Int, tokenIsInvalid: Bool, retryAfter: Duration?) -> FCMAction {
        switch self {
        case .unregistered, .senderIDMismatch:
            return .dropToken
        case .invalidArgument:
            return tokenIsInvalid ? .dropToken : .doNotRetry
        case .quotaExceeded, .unavailable, .internal:
            return .retry(after: retryAfter)
        case .thirdPartyAuthError, .apnsAuthError:
            return .configurationError
        default:
            switch status {
            case 429, 500...599: return .retry(after: retryAfter)
            case 401, 403, 404: return .configurationError
            default: return .doNotRetry
            }
        }
    }
}
