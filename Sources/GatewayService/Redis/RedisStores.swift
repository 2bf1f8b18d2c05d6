#if canImport(Glibc)
import Glibc
#endif
import APNsHTTP2
import DurableQueue
import EventLoops
import Foundation
import RedisClient

/// What a gateway configured with `redis.url` runs on Redis: one
/// connection per event loop (a claim made on a loop is answered on it),
/// the dedup store over them, and the fleet's APNs token store on the
/// first, and the async mode's queue (its consumers on connections of
/// their own). Made before the server starts; closed by the gateway's shutdown.
struct RedisStores: Sendable {
    let connections: [RedisConnection]
    let dedup: RedisDedupStore
    let providerTokens: RedisProviderTokenStore
    let queue: RedisStreamQueue

    /// Connects (in the background: a store not reachable yet makes the
    /// gateway unready, not unable to start). Refuses a CA file that cannot
    /// be used, naming its setting.
    init(_ settings: RedisSettings, url: RedisURL, loops: [EventLoop]) throws(ServiceError) {
        let configuration = RedisConfiguration(url: url, caFile: settings.caFile, connectTimeout: settings.connectTimeout,
                                               commandTimeout: settings.commandTimeout)
        var connections: [RedisConnection] = []
        do throws(RedisError) {
            for loop in loops { connections.append(try RedisConnection(configuration: configuration, loop: loop)) }
        } catch {
            for connection in connections { connection.close() }
            let setting = error.kind == .certificateRejected ? settings.caFileSetting?.setting ?? "PUSHGW_REDIS_CA_FILE" : settings.urlSetting
            throw ServiceError(setting: setting, "cannot use the Redis store at \(url.redacted): \(error)")
        }
        self.connections = connections
        dedup = RedisDedupStore(connections: connections, prefix: settings.prefix)
        providerTokens = RedisProviderTokenStore(connection: connections[0], prefix: settings.prefix)
        queue = RedisStreamQueue(redis: connections[0], consumerConfiguration: configuration,
                                 settings: RedisStreamQueue.Settings(prefix: settings.prefix, maximumLength: settings.queueMaximumLength,
                                                                     retention: settings.queueRetention))
    }

    func close() {
        for connection in connections { connection.close() }
    }

    /// This process's name in the fleet, the start of its mint lock's
    /// owner value: host name, process id and a random part (two processes
    /// of one container image may share a host name and a pid).
    static func replicaName() -> String {
        var random = SystemRandomNumberGenerator()
        return "\(ProcessInfo.processInfo.hostName):\(getpid()):\(String(random.next() as UInt32, radix: 16))"
    }
}
