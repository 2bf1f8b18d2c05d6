#if canImport(Glibc)
import Glibc
#endif
import PushGWSync

/// The `Authorization` header of Web Push requests (RFC 8292): a VAPID JWT
/// addressed to the push service's origin, signed with the application
/// server's key, and that key.
///
/// Tokens are cached per origin and reused, not signed per message: a token
/// lives ``lifetime`` (12 hours by default, at most 24, the limit push
/// services enforce), and is re-signed once less than half of that remains,
/// so every token sent still has hours to run even against a push service
/// whose clock is ahead of ours. A clock that moved back by more than 24 h
/// also re-signs (an `exp` that far ahead is refused). At most
/// ``maximumCachedOrigins`` origins are kept; push services are few, so the
/// bound only matters against endpoints of many origins.
///
/// Time comes from the injected `clock` (seconds since 1970).
///
/// Thread-safety: `Sendable`; the cache is behind one lock, held only to
/// read or store a token, never while signing (two threads that miss at once
/// both sign, and the later token is kept; both are valid).
public final class VAPIDAuthorizer: Sendable {
    /// The lifetime used when none is given: 12 hours.
    public static let defaultLifetime: Int64 = 12 * 3600
    /// The longest lifetime push services accept: 24 hours.
    public static let maximumLifetime: Int64 = 24 * 3600
    /// How many origins' tokens are kept.
    public static let maximumCachedOrigins = 256

    /// The key that signs.
    public let key: VAPIDKey
    /// The contact (`sub`), `mailto:` or `https:`.
    public let subject: String
    /// Seconds from signing to `exp`.
    public let lifetime: Int64
    private let clock: @Sendable () -> Int64
    private let cache = Locked<[PushServiceOrigin: VAPIDToken]>([:])
    private let signatures = Locked<Int>(0)

    /// - Parameters:
    ///   - key: the application server's key pair.
    ///   - subject: a `mailto:` or `https:` contact URI.
    ///   - lifetime: seconds from signing to `exp`, 60 … 86,400.
    ///   - clock: the current time in seconds since 1970 (the wall clock by default).
    /// - Throws: ``VAPIDError/invalidSubject(reason:)``, ``VAPIDError/invalidLifetime(seconds:)``.
    public init(key: VAPIDKey, subject: String, lifetime: Int64 = VAPIDAuthorizer.defaultLifetime,
                clock: @escaping @Sendable () -> Int64 = VAPIDAuthorizer.wallClock) throws(VAPIDError) {
        try VAPIDToken.validate(subject: subject)
        guard lifetime >= 60, lifetime <= Self.maximumLifetime else { throw .invalidLifetime(seconds: lifetime) }
        self.key = key
        self.subject = subject
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The wall clock, in whole seconds since 1970.
    @Sendable public static func wallClock() -> Int64 {
        Int64(time(nil))
    }

    /// How many tokens this authorizer has signed (for tests and metrics).
    public var signatureCount: Int {
        signatures.withLock { $0 }
    }

    /// The `Authorization` value for a request to `endpoint`:
    /// `vapid t=<JWT>, k=<public key>`.
    /// - Throws: ``VAPIDError/invalidEndpoint(reason:)``, ``VAPIDError/signingFailed(reason:)``.
    public func authorization(forEndpoint endpoint: String) throws(VAPIDError) -> String {
        try authorization(for: PushServiceOrigin(endpoint: endpoint))
    }

    /// The `Authorization` value for a request to `origin`.
    /// - Throws: ``VAPIDError/signingFailed(reason:)``.
    public func authorization(for origin: PushServiceOrigin) throws(VAPIDError) -> String {
        let now = clock()
        if let cached = cache.withLock({ $0[origin] }), isFresh(cached, now: now) {
            return cached.authorization
        }
        let token = try VAPIDToken(origin: origin, subject: subject, expiresAt: now + lifetime, key: key)
        signatures.withLock { $0 += 1 }
        cache.withLock { tokens in
            if tokens[origin] == nil, tokens.count >= Self.maximumCachedOrigins {
                Self.makeRoom(in: &tokens, now: now)
            }
            if let current = tokens[origin], current.expiresAt >= token.expiresAt, isFresh(current, now: now) { return }
            tokens[origin] = token
        }
        return token.authorization
    }

    /// Reused while at least half the lifetime remains and `exp` is not
    /// further ahead than push services accept.
    private func isFresh(_ token: VAPIDToken, now: Int64) -> Bool {
        let remaining = token.expiresAt - now
        return remaining >= lifetime - lifetime / 2 && remaining <= Self.maximumLifetime
    }

    /// Drops the expired tokens, or, when none has expired, the one expiring first.
    private static func makeRoom(in tokens: inout [PushServiceOrigin: VAPIDToken], now: Int64) {
        let before = tokens.count
        tokens = tokens.filter { $0.value.expiresAt > now }
        if tokens.count == before, let first = tokens.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
            tokens[first.key] = nil
        }
    }
}
