import PushGWSync

/// An in-process `DedupStore`: entries in arrival order, so the oldest are
/// swept first, and a capacity so memory stays bounded under any load (the
/// window holds for the most recent `capacity` events; older ones are
/// forgotten early rather than growing without limit).
///
/// Each event is kept as one packed byte array (`PackedRecordedEvent`),
/// filed under a seeded 64-bit hash of its key: one allocation per event
/// instead of one per string, about 0.3 KB for a two-device event instead of
/// 0.7 KB. The packed bytes hold the key itself, so a hash shared by two keys
/// is never mistaken for a hit; the newer event then takes the slot, as if
/// the older one had reached the capacity.
public final class InMemoryDedupStore: DedupStore {
    private struct Entry {
        var packed: PackedRecordedEvent
        var expires: ContinuousClock.Instant
    }

    private struct Storage {
        var entries: [UInt64: Entry] = [:]
        /// Hashes in the order they were recorded; `head` is the oldest live one.
        var order: [UInt64] = []
        var head = 0
    }

    private let storage = Locked(Storage())
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    public func lookup(_ key: String, now: ContinuousClock.Instant) async -> RecordedEvent? {
        let hash = Self.hash(key)
        let packed: PackedRecordedEvent? = storage.withLock { storage in
            guard let entry = storage.entries[hash], entry.expires > now else { return nil }
            return entry.packed
        }
        guard let packed, packed.isRecorded(under: key) else { return nil }
        return packed.unpack()
    }

    public func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant) async {
        let hash = Self.hash(key)
        let packed = PackedRecordedEvent(key: key, event: event)
        let now = ContinuousClock.now
        storage.withLock { storage in
            if storage.entries.updateValue(Entry(packed: packed, expires: expires), forKey: hash) == nil {
                storage.order.append(hash)
            }
            // Drop from the front: expired entries, then the oldest beyond capacity.
            while storage.head < storage.order.count {
                let oldest = storage.order[storage.head]
                guard let entry = storage.entries[oldest] else {
                    storage.head += 1
                    continue
                }
                guard entry.expires <= now || storage.entries.count > capacity else { break }
                storage.entries[oldest] = nil
                storage.head += 1
            }
            if storage.head > 1024, storage.head * 2 > storage.order.count {
                storage.order.removeFirst(storage.head)
                storage.head = 0
            }
        }
    }

    /// Events currently remembered.
    public var count: Int { storage.withLock { $0.entries.count } }

    /// Swift's per-process seeded hash: not predictable from outside, so
    /// event ids cannot be chosen to collide.
    private static func hash(_ key: String) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }
}
