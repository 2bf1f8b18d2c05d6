/// The provider-token refresh rules as a value type: which token to hand
/// out, when to mint, and what to answer to a rejection.
///
/// Minting is injected (`mint(issuedAt) -> jwt`), so the rules have no
/// keys, no locks and no clocks. ``ProviderTokenCache`` runs it under a mutex.
///
/// Invariant: a mint happens only when there is no token yet, or the current
/// token is at least ``minimumMintInterval`` old by `now`. `refreshAge` is
/// never below that interval, so a routine refresh keeps the rule too.
struct ProviderTokenRefreshState: Sendable {
    typealias Mint = (_ issuedAt: Int64) throws(ProviderTokenError) -> String

    /// Apple: refresh no more than once per 20 minutes.
    static let minimumMintInterval: Int64 = 20 * 60

    /// A token this old (seconds) or older is replaced on the next request.
    let refreshAge: Int64
    private(set) var currentToken: String?
    private(set) var currentIssuedAt: Int64 = 0
    private(set) var mintCount = 0

    init(refreshAge: Int64) {
        precondition(refreshAge >= Self.minimumMintInterval, "refresh age below the 20-minute minimum")
        self.refreshAge = refreshAge
    }

    /// The token to use at `now`: the current one until it reaches `refreshAge`.
    /// A clock that went backwards (negative age) keeps the current token.
    mutating func token(now: Int64, mint: Mint) throws(ProviderTokenError) -> String {
        if let currentToken, age(at: now) < refreshAge {
            return currentToken
        }
        return try mintNow(now, mint)
    }

    mutating func rejected(_ token: String, reason: APNsReason, now: Int64, mint: Mint) -> ProviderTokenRefreshDecision {
        switch reason {
        case .expiredProviderToken:
            guard let currentToken, currentToken == token else {
                // Already replaced (a concurrent rejection minted) or not ours:
                // hand out the current token, refreshed only if it is due.
                return Self.attempt { () throws(ProviderTokenError) in .retryWithNewToken(try self.token(now: now, mint: mint)) }
            }
            let tokenAge = age(at: now)
            guard tokenAge >= Self.minimumMintInterval else {
                // APNs expires tokens after 60 minutes; ours is under 20 by our
                // clock, so a clock is wrong. Minting would not help and would
                // risk TooManyProviderTokenUpdates.
                return .doNotRetry(.clockSkew(tokenAgeSeconds: tokenAge))
            }
            return Self.attempt { () throws(ProviderTokenError) in .retryWithNewToken(try self.mintNow(now, mint)) }
        case .tooManyProviderTokenUpdates:
            if let currentToken {
                return .retryWithCurrentToken(currentToken)
            }
            // Nothing minted yet, so a first mint cannot be early.
            return Self.attempt { () throws(ProviderTokenError) in .retryWithCurrentToken(try self.token(now: now, mint: mint)) }
        case .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken:
            return .doNotRetry(.credentialsRejected(reason))
        default:
            return .notATokenProblem
        }
    }

    /// Seconds since the current token was issued, saturating instead of
    /// trapping on absurd `now` values.
    private func age(at now: Int64) -> Int64 {
        let (age, overflow) = now.subtractingReportingOverflow(currentIssuedAt)
        if overflow { return now < currentIssuedAt ? .min : .max }
        return age
    }

    private mutating func mintNow(_ now: Int64, _ mint: Mint) throws(ProviderTokenError) -> String {
        if currentToken != nil {
            assert(age(at: now) >= Self.minimumMintInterval, "provider token minted twice within 20 minutes")
        }
        let token = try mint(now)
        currentToken = token
        currentIssuedAt = now
        mintCount += 1
        return token
    }

    private static func attempt(_ body: () throws(ProviderTokenError) -> ProviderTokenRefreshDecision) -> ProviderTokenRefreshDecision {
        do throws(ProviderTokenError) {
            return try body()
        } catch {
            return .doNotRetry(.signingFailed(String(describing: error)))
        }
    }
}
