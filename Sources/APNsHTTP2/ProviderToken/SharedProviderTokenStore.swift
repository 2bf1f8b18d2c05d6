/// Where the replicas of a fleet share one APNs provider token per team and
/// key, and the short lock that lets exactly one of them mint its
/// replacement. ``FleetProviderTokenCache`` is the only caller;
/// ``SharedProviderTokenStoreDouble`` is the in-process test double.
///
/// Every operation touches exactly one store key, so a sharded store
/// (Redis Cluster) can serve it; the token's key and its lock's key share
/// the hash tag `{TEAM.KEY}` and so live in the same slot
/// (``ProviderTokenStoreKey/storeKeys(prefix:)``). The intended Redis
/// commands, one per operation (`<token>` and `<lock>` being those two keys):
///
/// | operation | Redis |
/// |---|---|
/// | ``token(for:)`` | `GET <token>` → nil, or the value `"<iat> <jwt>"` (``SharedProviderToken/storedValue``) |
/// | ``acquireMintLock(for:owner:expiresAfter:)`` | `SET <lock> <owner> NX PX <ms>` → `OK` (taken) or nil (held by another) |
/// | ``releaseMintLock(for:owner:)`` | compare-and-delete, one key: `EVALSHA <sha> 1 <lock> <owner>` of `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end` |
/// | ``publish(_:for:expiresAfter:)`` | `SET <token> "<iat> <jwt>" PX <ms>` |
///
/// The lock's expiry is what frees the fleet from a replica that dies
/// holding it; the token's expiry (under Apple's 60 minutes) is what keeps a
/// token nobody refreshed from being handed out after APNs stops taking it.
///
/// Errors are typed: ``SharedProviderTokenStoreError/unavailable(_:)`` is
/// retryable (the caller falls back to a token of its own and tries the
/// store again on its next refresh).
///
/// Thread-safety: implementations are `Sendable`; operations may be called
/// concurrently (by one replica's refresh and by other replicas).
public protocol SharedProviderTokenStore: Sendable {
    /// The token the fleet shares for `key`, with its issue time; nil when
    /// there is none (never published, or expired).
    func token(for key: ProviderTokenStoreKey) async throws(SharedProviderTokenStoreError) -> SharedProviderToken?

    /// Takes the mint lock of `key` for `owner` unless someone holds it;
    /// the lock lapses by itself after `expiresAfter`. True when taken.
    func acquireMintLock(for key: ProviderTokenStoreKey, owner: String,
                         expiresAfter: Duration) async throws(SharedProviderTokenStoreError) -> Bool

    /// Releases the mint lock of `key` if `owner` still holds it (a lock
    /// that lapsed and was taken by another replica is left alone).
    func releaseMintLock(for key: ProviderTokenStoreKey, owner: String) async throws(SharedProviderTokenStoreError)

    /// Makes `token` the fleet's token for `key`, replacing the previous
    /// one; the entry lapses by itself after `expiresAfter`.
    func publish(_ token: SharedProviderToken, for key: ProviderTokenStoreKey,
                 expiresAfter: Duration) async throws(SharedProviderTokenStoreError)
}

/// Why a ``SharedProviderTokenStore`` operation failed.
public enum SharedProviderTokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store could not be reached or did not answer in time (refused,
    /// timed out, loading, failing over, read-only): retryable. The detail
    /// names the cause and never holds a token.
    case unavailable(String)
    /// The entry exists but is not a token (`"<iat> <jwt>"`): the caller
    /// treats it as no token, so the next mint replaces it.
    case malformedEntry

    public var description: String {
        switch self {
        case .unavailable(let detail): return "provider token store unavailable: \(detail)"
        case .malformedEntry: return "the shared provider token entry is not a token"
        }
    }
}

/// The team and key a shared provider token is signed for: the identity of
/// its entry and of its mint lock in a ``SharedProviderTokenStore``.
public struct ProviderTokenStoreKey: Sendable, Hashable, CustomStringConvertible {
    /// The 10-character Team ID (`iss`).
    public let teamID: String
    /// The 10-character Key ID (`kid`).
    public let keyID: String

    public init(teamID: String, keyID: String) {
        self.teamID = teamID
        self.keyID = keyID
    }

    /// `TEAM.KEY`: the hash tag both store keys carry.
    public var tag: String { teamID + "." + keyID }

    /// The store's key names under `prefix` (e.g. `pushgw:`):
    /// `<prefix>apns-token:{TEAM.KEY}` and `<prefix>apns-token-lock:{TEAM.KEY}`,
    /// one hash slot for both.
    public func storeKeys(prefix: String) -> (token: String, lock: String) {
        (prefix + "apns-token:{" + tag + "}", prefix + "apns-token-lock:{" + tag + "}")
    }

    public var description: String { tag }
}

/// A provider token as the fleet shares it: the JWT and its issue time.
/// `description` hides the JWT, a bearer credential for up to an hour.
public struct SharedProviderToken: Sendable, Hashable, CustomStringConvertible {
    /// The compact JWT.
    public let jwt: String
    /// Its `iat`, seconds since the epoch.
    public let issuedAt: Int64

    public init(jwt: String, issuedAt: Int64) {
        self.jwt = jwt
        self.issuedAt = issuedAt
    }

    /// The store's value: `"<iat> <jwt>"` (decimal issue time, one space).
    public var storedValue: String { String(issuedAt) + " " + jwt }

    /// Reads a ``storedValue``; nil unless it is a decimal issue time, one
    /// space and a JWT of three non-empty dot-separated parts.
    public init?(storedValue: String) {
        guard let space = storedValue.firstIndex(of: " "),
              let issuedAt = Int64(storedValue[..<space]) else { return nil }
        let jwt = String(storedValue[storedValue.index(after: space)...])
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }), !jwt.contains(" ") else { return nil }
        self.init(jwt: jwt, issuedAt: issuedAt)
    }

    public var description: String { "SharedProviderToken(iat: \(issuedAt))" }
}
