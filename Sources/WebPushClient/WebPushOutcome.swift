public import HTTP2Client

/// How a push service answered one web push message (RFC 8030 §5, §8).
public enum WebPushOutcome: Sendable, Equatable {
    /// Taken (201, or 200/202 from services that answer so): the message's
    /// `Location` (its URL at the push service; empty when absent).
    case accepted(location: String)
    /// Refused by the push service, or not sent for a reason that is the
    /// device's (keys no message can be encrypted to).
    case rejected(WebPushRejection)
    /// Not sent, by the sender's policy: an endpoint that is not an https
    /// URL of an allowed push service host (`endpoint_host_not_allowed`,
    /// `endpoint_not_usable`). Sending the event again cannot send it.
    case notSent(reason: String)
}

/// A push service's refusal of one message, in the shared vocabulary.
public struct WebPushRejection: Sendable, Equatable {
    /// The HTTP status; 0 when the message was never sent (the endpoint
    /// refused by the sender's policy, keys it cannot encrypt to).
    public var status: Int
    /// A short stable reason (`subscription_gone`, `payload_too_large`, …).
    public var reason: String
    public var verdict: ProviderVerdict

    public init(status: Int, reason: String, verdict: ProviderVerdict) {
        self.status = status
        self.reason = reason
        self.verdict = verdict
    }

    /// The reading of a push service's status (RFC 8030 §5–§8, RFC 8292
    /// §4): 404 and 410 end the subscription; 413 is final (the plaintext
    /// is already fitted to one record, so a service with a smaller limit
    /// refuses every message of this size); 429 and 5xx are retried,
    /// after `Retry-After` when given; 401 and 403 say the VAPID key or
    /// contact is wrong, which an operator must fix; any other 4xx is final.
    public init(status: Int, retryAfter: Duration?) {
        self.status = status
        switch status {
        case 404: (reason, verdict) = ("subscription_not_found", .dropToken(since: nil))
        case 410: (reason, verdict) = ("subscription_gone", .dropToken(since: nil))
        case 413: (reason, verdict) = ("payload_too_large", .final)
        case 429: (reason, verdict) = ("too_many_requests", .retry(after: retryAfter))
        case 401: (reason, verdict) = ("vapid_unauthorized", .configuration(detail: "the push service refused the VAPID authorization: check the app's VAPID key and subject"))
        case 403: (reason, verdict) = ("vapid_forbidden", .configuration(detail: "the push service refused the VAPID key: the subscription was made with another applicationServerKey, or the key or subject is refused"))
        case 500...599: (reason, verdict) = ("push_service_unavailable", .retry(after: retryAfter))
        case 400: (reason, verdict) = ("bad_request", .final)
        default: (reason, verdict) = ("unexpected_status_\(status)", .final)
        }
    }

    /// More push service origins than the sender keeps clients for: never sent.
    public static let tooManyOrigins = WebPushRejection(status: 0, reason: "too_many_push_services", verdict: .final)

    /// Subscription keys no message can be encrypted to (`p256dh` not a
    /// P-256 point): the subscription is unusable and is dropped.
    public static let unusableKeys = WebPushRejection(status: 0, reason: "invalid_subscription_keys", verdict: .dropToken(since: nil))
}
