import OpenSSLCrypto
public import RedisClient

/// `DurableQueue` on Redis Streams: a stream per queue, one consumer group
/// on it, and a small hash per message name.
///
/// - Keys: `PREFIX{Q}:events` (the stream) and `PREFIX{Q}:event:NAME` (the
///   name's state, id and note), where Q is the queue's name, or the SHA-1
///   of it when it holds a brace, so both keys of a queue share one hash
///   slot and Redis Cluster serves each script from one node.
/// - Enqueue: one script checks the stream's length against
///   `maximumLength`, then `XADD`s and writes the name's hash (expiring
///   after `retention`). The bound is checked, not `XADD MAXLEN ~`: trimming
///   would drop messages no consumer has acknowledged, silently. A full
///   stream refuses (`QueueFailure.full`).
/// - Consume: `XREADGROUP GROUP g c COUNT n BLOCK ms … >` on the consumer's
///   own connection (a blocked command holds up every command behind it on
///   its connection); a missing group (a first start, or a Redis restarted
///   without its data) is made with `XGROUP CREATE … 0 MKSTREAM`, from the
///   stream's first entry so that nothing enqueued before it is skipped.
/// - Acknowledge: one script `XACK`s and `XDEL`s the entry (so the stream's
///   length is what is not yet acknowledged) and notes the outcome.
/// - Reclaim: `XAUTOCLAIM` with the visibility timeout as min-idle-time,
///   then `XPENDING` for the delivery counts of what it took.
/// - Forget a replica gone for good: one script lists the group's
///   consumers (`XINFO CONSUMERS`) and `XGROUP DELCONSUMER`s each one idle
///   past a bound with nothing pending.
public final class RedisStreamQueue: DurableQueue {
    /// Tunables of the queue.
    public struct Settings: Sendable {
        /// Start of every key (`PUSHGW_REDIS_PREFIX`).
        public var prefix: String
        /// The consumer group's name.
        public var group: String
        /// Messages a stream holds, not yet acknowledged, before it refuses more.
        public var maximumLength: Int
        /// How long a name's state is kept after its last change.
        public var retention: Duration

        public init(prefix: String = "pushgw:", group: String = "pushgw", maximumLength: Int = 100_000,
                    retention: Duration = .seconds(86_400)) {
            self.prefix = prefix
            self.group = group
            self.maximumLength = maximumLength
            self.retention = retention
        }
    }

    public let settings: Settings
    /// For every command that does not block.
    let redis: RedisConnection
    /// The configuration of each consumer's own connection.
    let consumerConfiguration: RedisConfiguration

    /// - Parameters:
    ///   - redis: the connection for enqueues, acknowledgements and
    ///     reads of state (shared with other users; nothing here blocks it).
    ///   - consumerConfiguration: for each consumer's connection; its
    ///     command timeout is added to every blocking read's wait.
    public init(redis: RedisConnection, consumerConfiguration: RedisConfiguration, settings: Settings = Settings()) {
        self.redis = redis
        self.consumerConfiguration = consumerConfiguration
        self.settings = settings
    }

    // MARK: Keys

    /// The hash tag of `queue`'s keys, braces included.
    func tag(_ queue: String) -> String {
        let name = queue.contains("{") || queue.contains("}") || queue.isEmpty ? SHA1.hex(Array(queue.utf8)) : queue
        return "{" + name + "}"
    }

    func streamKey(_ queue: String) -> [UInt8] { Array((settings.prefix + tag(queue) + ":events").utf8) }

    func nameKey(_ queue: String, _ name: String) -> [UInt8] { Array((settings.prefix + tag(queue) + ":event:" + name).utf8) }

    // MARK: DurableQueue

    public func enqueue(_ queue: String, name: String, payload: [UInt8], note: [UInt8]) async throws(QueueFailure) -> String {
        let reply = try await Self.run { () async throws(RedisError) -> RESPValue in
            try await redis.run(Self.enqueueScript, keys: [streamKey(queue), nameKey(queue, name)], arguments: [
                Array(String(settings.maximumLength).utf8), payload, Array(name.utf8), note,
                Array(String(max(1, settings.retention.components.seconds)).utf8),
            ])
        }
        if case let .array(parts) = reply, parts.count == 2, parts[0].integer == 0 {
            throw QueueFailure(.full, "queue \(queue) holds \(parts[1].integer ?? 0) messages, its maximum")
        }
        guard let id = reply.string else { throw QueueFailure(.malformed, "XADD answered \(reply)") }
        return id
    }

    public func acknowledge(_ queue: String, id: String, name: String, outcome: QueuedState) async throws(QueueFailure) {
        _ = try await Self.run { () async throws(RedisError) -> RESPValue in
            try await redis.run(Self.acknowledgeScript, keys: [streamKey(queue), nameKey(queue, name)], arguments: [
                Array(settings.group.utf8), Array(id.utf8), Array(outcome.rawValue.utf8),
                Array(String(max(1, settings.retention.components.seconds)).utf8),
            ])
        }
    }

    public func status(_ queue: String, name: String) async throws(QueueFailure) -> QueuedStatus? {
        let reply = try await Self.run { () async throws(RedisError) -> RESPValue in
            try await redis.send(RedisCommand(arguments: [Array("HGETALL".utf8), nameKey(queue, name)]))
        }
        guard let fields = reply.array else { throw QueueFailure(.malformed, "HGETALL answered \(reply)") }
        var values: [String: [UInt8]] = [:]
        for pair in stride(from: 0, to: fields.count - 1, by: 2) {
            if let field = fields[pair].string, let value = fields[pair + 1].bytes { values[field] = value }
        }
        guard let state = values["state"], let id = values["id"] else { return nil }
        return QueuedStatus(state: QueuedState(String(decoding: state, as: UTF8.self)), id: String(decoding: id, as: UTF8.self),
                            note: values["note"] ?? [])
    }

    public func depth(_ queue: String) async throws(QueueFailure) -> QueueDepth {
        let stream = streamKey(queue)
        let replies = await redis.send([
            RedisCommand(arguments: [Array("XLEN".utf8), stream]),
            RedisCommand(arguments: [Array("XPENDING".utf8), stream, Array(settings.group.utf8)]),
            RedisCommand(arguments: [Array("XRANGE".utf8), stream, Array("-".utf8), Array("+".utf8), Array("COUNT".utf8), Array("1".utf8)]),
            RedisCommand("TIME"),
        ])
        let length = try Self.value(replies[0]).integer ?? 0
        var pending: Int64 = 0
        switch replies[1] {
        case let .success(summary): pending = summary.array?.first?.integer ?? 0
        case let .failure(error) where error.serverCode == "NOGROUP": pending = 0
        case let .failure(error): throw Self.failure(error)
        }
        var oldestAge = Duration.zero
        if let first = try Self.value(replies[2]).array?.first?.array?.first?.string,
           let firstMilliseconds = StreamID(first)?.milliseconds,
           let time = try Self.value(replies[3]).array, time.count == 2, let seconds = time[0].integer, let micros = time[1].integer {
            let nowMilliseconds = seconds * 1000 + micros / 1000
            oldestAge = .milliseconds(max(0, nowMilliseconds - firstMilliseconds))
        }
        return QueueDepth(length: Int(length), pending: Int(pending), oldestAge: oldestAge)
    }

    public func removeIdleConsumers(of queue: String, idleFor: Duration, keeping: String) async throws(QueueFailure) -> [String] {
        let milliseconds = max(1, idleFor.components.seconds * 1000 + idleFor.components.attoseconds / 1_000_000_000_000_000)
        let reply: RESPValue
        do {
            reply = try await redis.run(Self.removeIdleConsumersScript, keys: [streamKey(queue)], arguments: [
                Array(settings.group.utf8), Array(String(milliseconds).utf8), Array(keeping.utf8),
            ])
        } catch where error.serverCode == "NOGROUP" || (error.detail.contains("no such key")) {
            return []
        } catch {
            throw Self.failure(error)
        }
        return (reply.array ?? []).compactMap(\.string)
    }

    public func makeConsumer(of queue: String, named consumer: String) throws(QueueFailure) -> any QueueConsumer {
        let connection: RedisConnection
        do {
            connection = try RedisConnection(configuration: consumerConfiguration)
        } catch {
            throw Self.failure(error)
        }
        return RedisStreamConsumer(queue: self, name: queue, consumer: consumer, blocking: connection)
    }

    /// Makes the consumer group of `queue` (and the stream, empty) unless it exists.
    func createGroup(_ queue: String) async throws(QueueFailure) {
        do {
            _ = try await redis.send(RedisCommand(arguments: [
                Array("XGROUP".utf8), Array("CREATE".utf8), streamKey(queue), Array(settings.group.utf8), Array("0".utf8),
                Array("MKSTREAM".utf8),
            ]))
        } catch where error.serverCode == "BUSYGROUP" {
            return
        } catch {
            throw Self.failure(error)
        }
    }

    // MARK: Errors

    /// Runs one Redis call, its failure as a `QueueFailure`.
    static func run(_ body: () async throws(RedisError) -> RESPValue) async throws(QueueFailure) -> RESPValue {
        do {
            return try await body()
        } catch {
            throw failure(error)
        }
    }

    static func value(_ result: Result<RESPValue, RedisError>) throws(QueueFailure) -> RESPValue {
        switch result {
        case let .success(value): value
        case let .failure(error): throw failure(error)
        }
    }

    static func failure(_ error: RedisError) -> QueueFailure {
        error.isRetryable ? QueueFailure(.unavailable, error.description) : QueueFailure(.refused, error.description, retryable: false)
    }
}
