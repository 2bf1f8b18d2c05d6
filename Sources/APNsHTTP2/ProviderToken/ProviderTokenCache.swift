import HTTP2Client
public import OpenSSLCrypto
import Synchronization
import PushGWSync

/// The in-process ``ProviderTokenSource``: one signing key, one current JWT,
/// shared by every connection of this process.
///
/// Rules it implements (Apple's token lifetime rules, PROTOCOLS.md A4/A5):
/// - reuses the current token until its age reaches ``refreshAge``
///   (20…50 minutes, default 40), then mints one new token;
/// - never mints more than once per 20 minutes, even with many concurrent
///   callers: minting happens under the lock, so callers that arrive while a
///   token is being signed wait and share it;
/// - `ExpiredProviderToken` on the current token: if it is at least
///   20 minutes old, mints anew and answers "retry with the new token";
///   if younger, does not mint and answers "configuration error: check the
///   clock"; on a token already replaced, answers with the current one;
/// - `TooManyProviderTokenUpdates`: never mints early, keeps the current token;
/// - `InvalidProviderToken`, `MissingProviderToken`,
///   `BadEnvironmentKeyIdInToken`: no retry (configuration).
///
/// Time comes only from the `now` arguments (seconds since the epoch); the
/// cache reads no clock. ``mintCount`` counts successful mints for tests and
/// metrics.
///
/// Thread-safety: `Sendable`; all state is behind one `Mutex`, and the
/// signing key is immutable.
public final class ProviderTokenCache: ProviderTokenSource {
    /// The refresh age used when none is given: 40 minutes.
    public static let defaultRefreshAge: Duration = .seconds(40 * 60)
    /// The refresh ages accepted: 20 minutes (Apple's minimum interval between
    /// updates) to 50 minutes (a margin under Apple's 60-minute expiry).
    public static let allowedRefreshAges: ClosedRange<Duration> = .seconds(20 * 60) ... .seconds(50 * 60)

    /// The Key ID (`kid`) of ``signingKey``.
    public let keyID: String
    /// The Team ID (`iss`).
    public let teamID: String
    /// How old a token may get before the next request replaces it.
    public let refreshAge: Duration
    private let signingKey: ES256SigningKey
    private let state: Locked<ProviderTokenRefreshState>

    /// - Parameters:
    ///   - keyID: the 10-character Key ID of the `.p8` key.
    ///   - teamID: the 10-character Team ID.
    ///   - signingKey: the key behind `keyID`.
    ///   - refreshAge: within ``allowedRefreshAges``; whole seconds count,
    ///     a fraction of a second is ignored.
    /// - Throws: `invalidKeyID` / `invalidTeamID` for malformed IDs,
    ///   `refreshAgeOutOfRange` for a refresh age outside 20…50 minutes.
    public init(keyID: String, teamID: String, signingKey: ES256SigningKey,
                refreshAge: Duration = ProviderTokenCache.defaultRefreshAge) throws(ProviderTokenError) {
        try APNsProviderToken.validate(keyID: keyID, teamID: teamID)
        guard Self.allowedRefreshAges.contains(refreshAge) else {
            throw .refreshAgeOutOfRange(refreshAge)
        }
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAge = refreshAge
        self.signingKey = signingKey
        self.state = Locked(ProviderTokenRefreshState(refreshAge: refreshAge.components.seconds))
    }

    /// How many tokens this cache has minted (signed) so far.
    public var mintCount: Int {
        state.withLock { $0.mintCount }
    }

    /// The current JWT, minting a new one if there is none or it has reached
    /// ``refreshAge`` at `now`.
    /// - Throws: `signingFailed` if a needed mint fails to sign.
    public func token(now: Int64) throws(ProviderTokenError) -> String {
        try state.withLock { state throws(ProviderTokenError) in
            try state.token(now: now, mint: mint)
        }
    }

    /// Applies the rejection rules listed on the type.
    public func tokenWasRejected(_ token: String, reason: APNsReason, now: Int64) -> ProviderTokenRefreshDecision {
        state.withLock { state in
            state.rejected(token, reason: reason, now: now, mint: mint)
        }
    }

    /// Signs one token. Called only under the lock, by the state machine.
    private func mint(issuedAt: Int64) throws(ProviderTokenError) -> String {
        try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: signingKey).jwt
    }
}
