import PushGWSync

/// The `authorization` header value for a client's current credential (an
/// APNs provider token, an OAuth access token), made once per credential
/// instead of once per send.
///
/// Thread-safety: `Sendable`; the last credential and its value sit behind
/// a lock.
public final class AuthorizationValues: Sendable {
    private let scheme: String
    private let last = Locked<(credential: String, value: String)?>(nil)

    /// - Parameter scheme: what goes before the credential (`bearer`, `Bearer`).
    public init(scheme: String) {
        self.scheme = scheme
    }

    /// `scheme`, a space and `credential`: the same string as long as the
    /// credential is.
    public func value(for credential: String) -> String {
        last.withLock { last in
            if let last, last.credential == credential { return last.value }
            let value = "\(scheme) \(credential)"
            last = (credential, value)
            return value
        }
    }
}
