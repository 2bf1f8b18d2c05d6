/// Why a VAPID authorization could not be made or configured.
public enum VAPIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The contact (`sub`) is not a `mailto:` or `https:` URI of printable
    /// ASCII without quotes or backslashes; push services refuse others.
    case invalidSubject(reason: String)
    /// The JWT lifetime is not between 1 minute and 24 hours (RFC 8292 §2).
    case invalidLifetime(seconds: Int64)
    /// The push endpoint's URL gives no origin to address the JWT to.
    case invalidEndpoint(reason: String)
    /// The JWT could not be signed.
    case signingFailed(reason: String)

    public var description: String {
        switch self {
        case let .invalidSubject(reason): "invalid VAPID contact (sub): \(reason)"
        case let .invalidLifetime(seconds): "a VAPID JWT lifetime of \(seconds) s is outside 60 s … 24 h"
        case let .invalidEndpoint(reason): "invalid push endpoint: \(reason)"
        case let .signingFailed(reason): "signing the VAPID JWT failed: \(reason)"
        }
    }
}
