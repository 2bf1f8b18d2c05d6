public import HTTP2Client

extension FCMErrorCode {
    /// The verdict for this code, per PROTOCOLS.md B4:
    ///
    /// - UNREGISTERED, SENDER_ID_MISMATCH → drop the token;
    /// - INVALID_ARGUMENT → drop the token only when `tokenIsInvalid` (the
    ///   message says the registration token is not valid), else final;
    /// - QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL → retry, after `retryAfter`;
    /// - THIRD_PARTY_AUTH_ERROR (APNS_AUTH_ERROR) → final: the Firebase
    ///   project's APNs or web-push credential was refused, which fails the
    ///   devices reached through it and not FCM itself (its Android devices
    ///   still get their messages);
    /// - UNSPECIFIED_ERROR and unknown codes → by status: 429 and 5xx retry,
    ///   401/403/404 are configuration errors (our access token or project,
    ///   with Google's `message` as the detail), the rest are final.
    public func verdict(status: Int, tokenIsInvalid: Bool, retryAfter: Duration?, message: String = "") -> ProviderVerdict {
        switch self {
        case .unregistered, .senderIDMismatch:
            return .dropToken(since: nil)
        case .invalidArgument:
            return tokenIsInvalid ? .dropToken(since: nil) : .final
        case .quotaExceeded, .unavailable, .internal:
            return .retry(after: retryAfter)
        case .thirdPartyAuthError, .apnsAuthError:
            return .final
        default:
            switch status {
            case 429, 500...599: return .retry(after: retryAfter)
            case 401, 403, 404: return .configuration(detail: message.isEmpty ? nil : message)
            default: return .final
            }
        }
    }
}
