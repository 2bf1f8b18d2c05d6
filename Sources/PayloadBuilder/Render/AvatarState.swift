/// What is known about the sender's avatar at render time.
///
/// Only a resolved avatar (or, without a resolver, one not checked) is
/// forwarded; a dropped one leaves the `avatar` keys out entirely.
public enum AvatarState: Sendable, Equatable {
    /// The event has no `avatar_url`.
    case none
    /// No resolver ran (the pure `pushgw render`): the URL is forwarded as given.
    case unchecked(url: String)
    /// Downloaded and checked: forwarded as its original URL.
    case ok(url: String, mime: String, bytes: Int, sha256: String)
    /// Refused by the resolver, with why; nothing is forwarded.
    case dropped(url: String, reason: String)

    /// The URL to put in the payload, if any.
    public var forwardedURL: String? {
        switch self {
        case let .unchecked(url), let .ok(url, _, _, _): return url
        case .none, .dropped: return nil
        }
    }

    /// The drop reason of an avatar whose URL would not let the notification
    /// fit the payload limit even with the text removed: the avatar is
    /// decoration, so the notification is sent without it.
    public static let doesNotFitReason = "does_not_fit"

    /// The state before any resolver ran.
    public init(unresolvedURL url: String?) {
        self = url.map { .unchecked(url: $0) } ?? .none
    }
}
