import PayloadBuilder

/// Why the resolver dropped an avatar: a short, machine-readable label.
///
/// It is what `AvatarState.dropped(url:reason:)` carries and the `result`
/// label of `pushgw_avatar_fetch_total`, so the set is bounded: fixed labels, plus
/// `http_status_<code>` for a final status other than 200 (`http_status_other`
/// outside 100…599). It never contains the URL. An open set (a struct with
/// static members), so a new reason breaks nobody's `switch`.
public struct AvatarDropReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The label, e.g. `private_address`.
    public let rawValue: String

    /// A reason with this label (for reasons this type does not name yet).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The label.
    public var description: String { rawValue }

    /// Not a URL libcurl can parse (or longer than 2048 bytes).
    public static let badURL = AvatarDropReason(rawValue: "bad_url")
    /// Not `https` (or `http` when allowed).
    public static let schemeNotAllowed = AvatarDropReason(rawValue: "scheme_not_allowed")
    /// The URL carries a user name or password.
    public static let credentialsInURL = AvatarDropReason(rawValue: "credentials_in_url")
    /// The host is not on the policy's allow-list.
    public static let hostNotAllowed = AvatarDropReason(rawValue: "host_not_allowed")
    /// The host is, or resolved only to, a forbidden address.
    public static let privateAddress = AvatarDropReason(rawValue: "private_address")
    /// The body (or its announced length) exceeds `maxBytes`.
    public static let tooLarge = AvatarDropReason(rawValue: "too_large")
    /// The total or connect timeout passed.
    public static let timeout = AvatarDropReason(rawValue: "timeout")
    /// The body does not start with a known image signature.
    public static let notAnImage = AvatarDropReason(rawValue: "not_an_image")
    /// A known image type the policy does not accept.
    public static let typeNotAllowed = AvatarDropReason(rawValue: "type_not_allowed")
    /// More redirects than `maxRedirects`.
    public static let tooManyRedirects = AvatarDropReason(rawValue: "too_many_redirects")
    /// The name did not resolve.
    public static let dnsFailed = AvatarDropReason(rawValue: "dns_failed")
    /// No connection could be made.
    public static let connectFailed = AvatarDropReason(rawValue: "connect_failed")
    /// The TLS handshake or certificate verification failed.
    public static let tlsFailed = AvatarDropReason(rawValue: "tls_failed")
    /// The connection broke or the server answered something that is not HTTP.
    public static let transferFailed = AvatarDropReason(rawValue: "transfer_failed")
    /// Too many downloads were already waiting for a thread (many distinct
    /// URLs at once, e.g. behind a dead host): not tried, not remembered.
    public static let queueFull = AvatarDropReason(rawValue: "queue_full")
    /// Anything else (libcurl could not be set up, no thread could be started).
    public static let fetchFailed = AvatarDropReason(rawValue: "fetch_failed")

    /// Not a download result: the renderer dropped an avatar whose URL would
    /// not let the notification fit the payload limit (`AvatarState.doesNotFitReason`).
    public static let doesNotFit = AvatarDropReason(rawValue: AvatarState.doesNotFitReason)

    /// `http_status_<code>` for a final response other than 200.
    public static func httpStatus(_ code: Int) -> AvatarDropReason {
        AvatarDropReason(rawValue: (100...599).contains(code) ? "http_status_\(code)" : "http_status_other")
    }
}
