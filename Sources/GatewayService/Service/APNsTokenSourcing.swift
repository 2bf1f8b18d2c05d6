public import APNsHTTP2
import OpenSSLCrypto

/// Where the gateway gets each APNs key's provider tokens: from this process
/// alone (``inProcess``, one `ProviderTokenCache` per app), or from the
/// fleet through a shared store (``shared(store:replica:settings:)``, one
/// `FleetProviderTokenCache` per app, all replicas presenting one token per
/// team and key). The default, ``configured``, is the fleet's on the Redis
/// store when `redis.url` is set, else this process's.
public struct APNsTokenSourcing: Sendable {
    enum Kind: Sendable {
        case inProcess
        case shared(any SharedProviderTokenStore, replica: String, settings: FleetProviderTokenCache.Settings)
        case configured
    }

    let kind: Kind

    /// The fleet's, through the Redis store when `redis.url` is configured
    /// (this replica named by host, process id and a random part);
    /// otherwise this process's. The gateway's default.
    public static let configured = APNsTokenSourcing(kind: .configured)

    /// One token per key in this process; nothing shared.
    public static let inProcess = APNsTokenSourcing(kind: .inProcess)

    /// One token per team and key for every replica sharing `store`.
    /// - Parameters:
    ///   - replica: this replica's name, the start of its mint lock's owner value.
    ///   - settings: the refresh interval and the lock's timing; the refresh
    ///     age is each app's `token_refresh_minutes`.
    public static func shared(store: any SharedProviderTokenStore, replica: String,
                              settings: FleetProviderTokenCache.Settings = FleetProviderTokenCache.Settings()) -> APNsTokenSourcing {
        APNsTokenSourcing(kind: .shared(store, replica: replica, settings: settings))
    }

    /// `configured` made concrete for a gateway with (or without) Redis stores.
    func resolved(redis: RedisStores?) -> APNsTokenSourcing {
        guard case .configured = kind else { return self }
        guard let redis else { return .inProcess }
        return .shared(store: redis.providerTokens, replica: RedisStores.replicaName())
    }

    /// The source for one app's key. A shared source reports the store's
    /// failure and recovery in one log line each.
    func source(keyID: String, teamID: String, signingKey: ES256SigningKey, refreshAge: Duration,
                logger: Logger, now: @escaping @Sendable () -> Int64) throws(ProviderTokenError) -> APNsTokenSource {
        switch kind {
        case .inProcess, .configured:
            return .inProcess(try ProviderTokenCache(keyID: keyID, teamID: teamID, signingKey: signingKey, refreshAge: refreshAge))
        case let .shared(store, replica, settings):
            var settings = settings
            settings.refreshAge = refreshAge
            let fields = [("team_id", teamID), ("key_id", keyID)]
            return .fleet(try FleetProviderTokenCache(
                keyID: keyID, teamID: teamID, signingKey: signingKey, store: store, settings: settings, replica: replica, now: now,
                report: { report in
                    switch report {
                    case .unreachable(let error):
                        logger.warning("APNs provider token store unreachable: this replica uses a token of its own until it answers",
                                       fields + [("detail", "\(error)")])
                    case .reachable:
                        logger.info("APNs provider token store reachable again: back to the fleet's token", fields)
                    }
                }))
        }
    }
}

/// One app's APNs token source as the gateway holds it: the source, and
/// what metrics and the lifecycle need of it.
enum APNsTokenSource: Sendable {
    case inProcess(ProviderTokenCache)
    case fleet(FleetProviderTokenCache)

    var source: any ProviderTokenSource {
        switch self {
        case .inProcess(let cache): return cache
        case .fleet(let cache): return cache
        }
    }

    var mintCount: Int {
        switch self {
        case .inProcess(let cache): return cache.mintCount
        case .fleet(let cache): return cache.mintCount
        }
    }

    /// How many times the shared store became unreachable.
    var fallbackCount: Int {
        if case .fleet(let cache) = self { return cache.fallbackCount }
        return 0
    }

    /// Whether a fleet source hands out a token of its own.
    var usesLocalToken: Bool {
        if case .fleet(let cache) = self { return cache.isUsingLocalToken }
        return false
    }

    var fleet: FleetProviderTokenCache? {
        if case .fleet(let cache) = self { return cache }
        return nil
    }
}
