import Synchronization
import PushGWSync

/// The in-process ``AccessTokenSource``: one cached OAuth 2.0 access token,
/// refreshed ``refreshMargin`` before it expires (google-auth's 3 min 45 s
/// by default), by exactly one grant however many callers ask at once —
/// the others wait for that grant's result. Inside the refresh margin the
/// cached token is still handed out while that grant runs: only a caller
/// with no valid token waits.
///
/// After ``invalidate(_:)`` (FCM said 401 or 403 without an FcmError
/// detail), the next call fetches once; a replacement refused again soon
/// after is kept, and refusals are final for a minute. A grant that fails
/// while the cached token is still valid leaves that token in use. The
/// rules live in `AccessTokenCacheState`; this class adds the lock and the
/// shared task.
///
/// Time comes only from the injected `now` (epoch seconds). ``grantCount``
/// counts successful grants, for tests and metrics.
///
/// Thread-safety: `Sendable`; all state is behind one `Mutex`, the grant
/// runs in one unstructured task whose result every waiting caller reads.
public final class AccessTokenCache: AccessTokenSource {
    /// google-auth's refresh margin: 3 minutes 45 seconds before expiry.
    public static let defaultRefreshMargin: Duration = .seconds(225)
    /// The real-time clock in epoch seconds (the default `now`).
    public static let systemClock: @Sendable () -> Int64 = { EpochClock.seconds() }

    /// How long before expiry the cached token is replaced.
    public let refreshMargin: Duration
    private let fetcher: any AccessTokenFetcher
    private let now: @Sendable () -> Int64
    private let state: PushGWSync.Locked<Shared>

    private struct Shared {
        var rules: AccessTokenCacheState
        var grant: Task<Result<String, AccessTokenError>, Never>?
    }

    /// - Parameters:
    ///   - fetcher: performs grants (``ServiceAccountTokenFetcher`` in production).
    ///   - refreshMargin: replace the token this long before it expires;
    ///     whole seconds count.
    ///   - now: the clock, in epoch seconds.
    public init(fetcher: any AccessTokenFetcher, refreshMargin: Duration = AccessTokenCache.defaultRefreshMargin,
                now: @escaping @Sendable () -> Int64 = AccessTokenCache.systemClock) {
        self.fetcher = fetcher
        self.refreshMargin = refreshMargin
        self.now = now
        state = PushGWSync.Locked(Shared(rules: AccessTokenCacheState(refreshMargin: refreshMargin.components.seconds)))
    }

    /// A cache that fetches with the service account's key from its `token_uri`.
    public convenience init(serviceAccount: ServiceAccount, configuration: TokenEndpointConfiguration = TokenEndpointConfiguration(),
                            refreshMargin: Duration = AccessTokenCache.defaultRefreshMargin,
                            now: @escaping @Sendable () -> Int64 = AccessTokenCache.systemClock) {
        self.init(fetcher: ServiceAccountTokenFetcher(serviceAccount: serviceAccount, configuration: configuration),
                  refreshMargin: refreshMargin, now: now)
    }

    /// Successful grants so far.
    public var grantCount: Int { state.withLock { $0.rules.grantCount } }

    /// Failed grants so far.
    public var failedGrantCount: Int { state.withLock { $0.rules.failedGrantCount } }

    /// True while a recent failed grant holds off new ones (callers without
    /// a usable token get its error at once).
    public var isHoldingOffGrants: Bool {
        let now = self.now()
        return state.withLock { $0.rules.holdOff.map { now < $0.until } ?? false }
    }

    public func accessToken() async throws(AccessTokenError) -> String {
        let now = self.now()
        let step: Step = state.withLock { locked in
            switch locked.rules.decide(now: now) {
            case .use(let token):
                return .use(token)
            case let .useAndRefresh(token, id):
                startGrant(id, now: now, in: &locked)
                return .use(token)
            case .join:
                // A grant is in flight exactly when the rules say so.
                return .wait(locked.grant!)
            case .start(let id):
                return .wait(startGrant(id, now: now, in: &locked))
            case .fail(let error):
                return .fail(error)
            }
        }
        switch step {
        case .use(let token):
            return token
        case .wait(let grant):
            return try await grant.value.get()
        case .fail(let error):
            throw error
        }
    }

    /// What `accessToken()` does once it has left the lock.
    private enum Step {
        case use(String)
        case wait(Task<Result<String, AccessTokenError>, Never>)
        case fail(AccessTokenError)
    }

    /// Starts grant `id`, whose result every caller waiting for it reads
    /// and which reports to the rules when it ends.
    @discardableResult
    private func startGrant(_ id: UInt64, now: Int64, in locked: inout Shared) -> Task<Result<String, AccessTokenError>, Never> {
        let task = Task { [fetcher] () -> Result<String, AccessTokenError> in
            let result: Result<AccessTokenGrant, AccessTokenError>
            do throws(AccessTokenError) {
                result = .success(try await fetcher.fetch(now: now))
            } catch {
                result = .failure(error)
            }
            return self.finish(id, result)
        }
        locked.grant = task
        return task
    }

    /// The valid cached token, starting its replacement when it is due.
    public func accessTokenWithoutWaiting() -> String? {
        let now = self.now()
        return state.withLock { locked in
            guard let (token, refresh) = locked.rules.tokenWithoutWaiting(now: now) else { return nil }
            if let refresh { startGrant(refresh, now: now, in: &locked) }
            return token
        }
    }

    @discardableResult
    public func invalidate(_ token: String) -> Bool {
        let now = self.now()
        return state.withLock { $0.rules.invalidate(token, now: now) }
    }

    private func finish(_ id: UInt64, _ result: Result<AccessTokenGrant, AccessTokenError>) -> Result<String, AccessTokenError> {
        let now = self.now()
        return state.withLock { locked in
            locked.grant = nil
            return locked.rules.finished(id, result, now: now)
        }
    }
}
