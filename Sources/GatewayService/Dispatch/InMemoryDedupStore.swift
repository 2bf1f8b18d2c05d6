import PushGWSync

/// An in-process `DedupStore`: entries in arrival order, so the oldest are
/// swept first, and a capacity in events and in bytes so memory stays
/// bounded under any load (the window holds for the most recent events that
/// fit both; older ones are forgotten early rather than growing without limit).
///
/// Events are packed into a log of large chunks (`DedupLog`), filed under a
/// seeded 64-bit hash of their key: about 0.2 KB for a two-device event, with
/// no allocation of its own. The packed bytes hold the key itself, so a hash
/// shared by two keys is never mistaken for a hit; the newer event then takes
/// the slot, as if the older one had reached the capacity.
public final class InMemoryDedupStore: DedupStore {
    private let log = Locked(DedupLog())
    public let capacity: Int
    /// Most bytes of packed records kept (about 0.2 KB for a two-device
    /// event, 33 KB for a 500-device one).
    public let byteCapacity: Int

    public init(capacity: Int = 100_000, byteCapacity: Int = 64 << 20) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    /// Answers before it returns, on the caller's thread.
    public func lookup(_ key: String, now: ContinuousClock.Instant, answer: @escaping @Sendable (RecordedEvent?) -> Void) {
        answer(recorded(key, now: now))
    }

    /// Records before it returns, then calls `done` on the caller's thread.
    public func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant, done: @escaping @Sendable () -> Void) {
        let hash = Self.hash(key)
        let now = ContinuousClock.now
        log.withLock { log in
            log.append(hash, key: key, event: event, expires: expires)
            log.sweep(now: now, capacity: capacity, byteCapacity: byteCapacity)
        }
        done()
    }

    private func recorded(_ key: String, now: ContinuousClock.Instant) -> RecordedEvent? {
        let hash = Self.hash(key)
        let packed: [UInt8]? = log.withLock { log in log.lookup(hash, now: now).map(Array.init) }
        guard let packed, PackedRecordedEvent.isRecorded(packed[...], under: key) else { return nil }
        return PackedRecordedEvent.unpack(packed[...])
    }

    /// Events currently remembered.
    public var count: Int { log.withLock { $0.count } }

    /// Bytes of records currently kept (live, or dead and not yet swept).
    public var recordBytes: Int { log.withLock { $0.bytes } }

    /// Swift's per-process seeded hash: not predictable from outside, so
    /// event ids cannot be chosen to collide.
    private static func hash(_ key: String) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }
}
