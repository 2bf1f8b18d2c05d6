import RedisClient

/// One consumer of a `RedisStreamQueue` stream, with its own connection for
/// `XREADGROUP … BLOCK` (which holds up every command behind it on its
/// connection); reclaims go on the queue's shared connection.
final class RedisStreamConsumer: QueueConsumer {
    let queue: RedisStreamQueue
    /// The queue's name (an app's).
    let name: String
    let consumer: String
    let blocking: RedisConnection

    init(queue: RedisStreamQueue, name: String, consumer: String, blocking: RedisConnection) {
        self.queue = queue
        self.name = name
        self.consumer = consumer
        self.blocking = blocking
    }

    func receive(count: Int, wait: Duration) async throws(QueueFailure) -> [QueuedMessage] {
        let waitMilliseconds = max(1, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        let command = RedisCommand(arguments: [
            Array("XREADGROUP".utf8), Array("GROUP".utf8), Array(queue.settings.group.utf8), Array(consumer.utf8),
            Array("COUNT".utf8), Array(String(max(1, count)).utf8), Array("BLOCK".utf8), Array(String(waitMilliseconds).utf8),
            Array("STREAMS".utf8), queue.streamKey(name), Array(">".utf8),
        ])
        for attempt in 0..<2 {
            do {
                let reply = try await blocking.send(command, deadline: .now + wait + blocking.configuration.commandTimeout)
                if reply.isNull { return [] }
                guard let streams = reply.array, let entries = streams.first?.array?.last?.array else {
                    throw QueueFailure(.malformed, "XREADGROUP answered \(reply)")
                }
                var messages: [QueuedMessage] = []
                for entry in entries {
                    if let message = try Self.message(entry, deliveries: 1) { messages.append(message) }
                }
                return messages
            } catch let error as RedisError where error.serverCode == "NOGROUP" && attempt == 0 {
                try await queue.createGroup(name)
            } catch let error as RedisError {
                throw RedisStreamQueue.failure(error)
            } catch let error as QueueFailure {
                throw error
            } catch {
                throw QueueFailure(.malformed, "\(error)")
            }
        }
        return []
    }

    func reclaim(idleFor: Duration, count: Int) async throws(QueueFailure) -> [QueuedMessage] {
        let idleMilliseconds = idleFor.components.seconds * 1000 + idleFor.components.attoseconds / 1_000_000_000_000_000
        let stream = queue.streamKey(name)
        let group = Array(queue.settings.group.utf8)
        let claimed: RESPValue
        do {
            claimed = try await queue.redis.send(RedisCommand(arguments: [
                Array("XAUTOCLAIM".utf8), stream, group, Array(consumer.utf8), Array(String(idleMilliseconds).utf8),
                Array("0-0".utf8), Array("COUNT".utf8), Array(String(max(1, count)).utf8),
            ]))
        } catch where error.serverCode == "NOGROUP" {
            try await queue.createGroup(name)
            return []
        } catch {
            throw RedisStreamQueue.failure(error)
        }
        guard let parts = claimed.array, parts.count >= 2, let entries = parts[1].array else {
            throw QueueFailure(.malformed, "XAUTOCLAIM answered \(claimed)")
        }
        let ids = entries.compactMap { $0.array?.first?.string }
        guard let first = ids.first, let last = ids.last else { return [] }
        // The counts XAUTOCLAIM raised, for what this consumer now holds of that range.
        let pending = try await RedisStreamQueue.run { () async throws(RedisError) -> RESPValue in
            try await queue.redis.send(RedisCommand(arguments: [
                Array("XPENDING".utf8), stream, group, Array(first.utf8), Array(last.utf8), Array(String(ids.count).utf8),
                Array(consumer.utf8),
            ]))
        }
        var deliveries: [String: Int] = [:]
        for row in pending.array ?? [] {
            if let fields = row.array, fields.count == 4, let id = fields[0].string, let count = fields[3].integer {
                deliveries[id] = Int(count)
            }
        }
        var messages: [QueuedMessage] = []
        for entry in entries {
            guard let id = entry.array?.first?.string, let message = try Self.message(entry, deliveries: deliveries[id] ?? 2)
            else { continue }
            messages.append(message)
        }
        return messages
    }

    func close() {
        blocking.close()
    }

    /// An entry `[id, [field, value, …]]`; nil for one deleted meanwhile (its fields null).
    static func message(_ entry: RESPValue, deliveries: Int) throws(QueueFailure) -> QueuedMessage? {
        guard let parts = entry.array, parts.count == 2, let id = parts[0].string else {
            throw QueueFailure(.malformed, "a stream entry was \(entry)")
        }
        guard let fields = parts[1].array else { return nil }
        var name = ""
        var payload: [UInt8] = []
        for pair in stride(from: 0, to: fields.count - 1, by: 2) {
            switch fields[pair].string {
            case "name": name = fields[pair + 1].string ?? ""
            case "payload": payload = fields[pair + 1].bytes ?? []
            default: break
            }
        }
        return QueuedMessage(id: id, name: name, payload: payload, deliveries: deliveries)
    }
}
