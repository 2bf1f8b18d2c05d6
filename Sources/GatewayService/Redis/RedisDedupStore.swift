import PayloadBuilder
import PushGWSync
public import RedisClient
import Synchronization

/// The `DedupStore` of a fleet: claims and records in Redis (or Valkey),
/// shared by every replica that names the same server and prefix.
///
/// Keys, per dedup key K (app, `event_id`, message fingerprint): with D the
/// first 128 bits of SHA-256 of K in hex, `PREFIX{D}:claim` holds the
/// owner of the claim (`DedupClaimOwner.description`, expiring after the
/// hold) and `PREFIX{D}:record` the record (expiring after the dedup
/// window). The shared hash tag `{D}` keeps both on one Redis Cluster slot,
/// and D, not K, is in the tag: an `event_id` may hold a brace. Each call is
/// one Lua script over both keys (`RedisDedupScripts`), so the claim and
/// the read of the record are one atomic step, as are the record and the
/// release.
///
/// A record's value is a format byte (1) and `PackedRecordedEvent`'s
/// bytes, which hold K itself: a record of another key with the same digest
/// is never taken for K's, and one that is not in this format (another
/// program, another version) is read as no record, to be replaced by the
/// next.
///
/// Time is the server's: a claim lapses `holdFor`, a record `keepFor`,
/// after Redis runs the command (the `now` arguments are the in-process
/// store's). Each call has the connection's command timeout; its answer
/// comes from the thread of the connection's event loop (the caller's own
/// loop when it has a connection there: one per gateway loop keeps an
/// event on its thread), or at once on the caller's when the connection is
/// down. A failure is `DedupStoreFailure(_: RedisError)`. A copy waits for
/// a held claim by asking again (`DedupClaimPolling`).
///
/// Thread-safety: `Sendable`; the connections are, and the last failure is
/// behind a lock.
public final class RedisDedupStore: DedupStore {
    /// Put before every key.
    public let prefix: String
    private let connections: [RedisConnection]
    private let turn = Atomic<UInt>(0)
    /// The last call's failure, until a later call or a probe succeeds.
    private let lastFailure = Locked<DedupStoreFailure?>(nil)
    /// A PING is out to find whether the store answers again.
    private let probing = Atomic<Bool>(false)
    /// The first byte of every record this store writes.
    static let recordFormat: UInt8 = 1

    /// - Parameters:
    ///   - connections: one or more connections to the store (one per
    ///     event loop of the gateway); the caller closes them.
    ///   - prefix: put before every key (`redis.prefix`).
    public init(connections: [RedisConnection], prefix: String) {
        precondition(!connections.isEmpty, "a Redis dedup store needs a connection")
        self.connections = connections
        self.prefix = prefix
    }

    /// `PREFIX{D}:claim` and `PREFIX{D}:record` for the dedup key `key`.
    public static func keys(for key: String, prefix: String) -> (claim: String, record: String) {
        let (high, low) = SHA256.leading128(utf8: key)
        let base = prefix + "{" + hex(high) + hex(low) + "}:"
        return (base + "claim", base + "record")
    }

    public func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration,
                      answer: @escaping @Sendable (DedupClaim) -> Void) {
        let (claimKey, recordKey) = Self.keys(for: key, prefix: prefix)
        connection().run(RedisDedupScripts.claim, keys: [Array(claimKey.utf8), Array(recordKey.utf8)],
                         arguments: [Array(owner.description.utf8), Self.milliseconds(holdFor, atLeast: 1)]) { result in
            switch result {
            case let .failure(error):
                answer(.unavailable(self.failed(DedupStoreFailure(error))))
            case let .success(reply):
                guard let parts = reply.array, parts.count == 2, let taken = parts[0].integer else {
                    return answer(.unavailable(self.failed(DedupStoreFailure(.refused, "the claim script answered \(reply.shape)"))))
                }
                self.succeeded()
                let recorded = Self.recorded(parts[1], key: key)
                answer(taken == 1 ? .claimed(recorded) : .held(recorded))
            }
        }
    }

    public func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                       releasing owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        let (claimKey, recordKey) = Self.keys(for: key, prefix: prefix)
        var value: [UInt8] = []
        if keepFor > .zero {
            value.reserveCapacity(1 + PackedRecordedEvent.size(key: key, event: event))
            value.append(Self.recordFormat)
            PackedRecordedEvent.append(key: key, event: event, to: &value)
        }
        connection().run(RedisDedupScripts.record, keys: [Array(claimKey.utf8), Array(recordKey.utf8)],
                         arguments: [Array(owner.description.utf8), Self.milliseconds(keepFor, atLeast: 0), value]) { result in
            done(self.settled(result))
        }
    }

    public func release(_ key: String, by owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        let claimKey = Self.keys(for: key, prefix: prefix).claim
        connection().run(RedisDedupScripts.compareAndDelete, keys: [Array(claimKey.utf8)],
                         arguments: [Array(owner.description.utf8)]) { result in
            done(self.settled(result))
        }
    }

    /// A plain `GET` of the record: no claim is taken, so a status read
    /// never makes the event's own dispatch wait.
    public func peek(_ key: String, now: ContinuousClock.Instant,
                     answer: @escaping @Sendable (Result<RecordedEvent?, DedupStoreFailure>) -> Void) {
        let recordKey = Self.keys(for: key, prefix: prefix).record
        connection().send(RedisCommand(arguments: [Array("GET".utf8), Array(recordKey.utf8)])) { result in
            switch result {
            case let .failure(error):
                answer(.failure(self.failed(DedupStoreFailure(error))))
            case let .success(reply):
                self.succeeded()
                answer(.success(Self.recorded(reply, key: key)))
            }
        }
    }

    /// A connection that is down (its failure), the last call's failure
    /// until a later call succeeds, or a connection not yet made. With a
    /// failure on record it sends one PING (one at a time) whose answer
    /// clears it, so that an idle gateway, which makes no calls, still
    /// sees the store come back.
    public var currentFailure: DedupStoreFailure? {
        for connection in connections {
            if let down = connection.failureWhileDown { return DedupStoreFailure(down) }
        }
        if let failure = lastFailure.withLock({ $0 }) {
            probe()
            return failure
        }
        if let connecting = connections.first(where: { !$0.isConnected }) {
            return DedupStoreFailure(.unreachable, "connecting to Redis at \(connecting.configuration.url.host):"
                + "\(connecting.configuration.url.port)")
        }
        return nil
    }

    // MARK: Helpers

    /// The connection on the caller's event loop, else the next in turn.
    private func connection() -> RedisConnection {
        if connections.count == 1 { return connections[0] }
        if let local = connections.first(where: \.isOnCurrentLoop) { return local }
        return connections[Int(turn.add(1, ordering: .relaxed).oldValue % UInt(connections.count))]
    }

    private func settled(_ result: Result<RESPValue, RedisError>) -> DedupStoreFailure? {
        switch result {
        case let .failure(error):
            return failed(DedupStoreFailure(error))
        case .success:
            succeeded()
            return nil
        }
    }

    private func failed(_ failure: DedupStoreFailure) -> DedupStoreFailure {
        lastFailure.withLock { $0 = failure }
        return failure
    }

    private func succeeded() {
        lastFailure.withLock { if $0 != nil { $0 = nil } }
    }

    private func probe() {
        guard probing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        connections[0].send(RedisCommand("PING")) { result in
            if case .success = result { self.succeeded() }
            self.probing.store(false, ordering: .releasing)
        }
    }

    /// The record in a reply: nil for none, another key's, or one not in this format.
    static func recorded(_ value: RESPValue, key: String) -> RecordedEvent? {
        guard case let .bulkString(bytes) = value, bytes.first == recordFormat,
              case let .event(event) = PackedRecordedEvent.checked(bytes.dropFirst(), under: key) else { return nil }
        return event
    }

    /// Whole milliseconds, rounded up, at least `minimum`, in decimal.
    static func milliseconds(_ duration: Duration, atLeast minimum: Int64) -> [UInt8] {
        let (seconds, attoseconds) = duration.components
        let milliseconds = duration <= .zero ? 0 : seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Array(String(max(milliseconds, minimum)).utf8)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
