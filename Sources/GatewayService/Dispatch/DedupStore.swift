import Foundation
import Synchronization
import PushGWSync

/// Where the outcome of an event is remembered for the dedup window, so a
/// caller's retry of the same `event_id` is not sent twice. The seam for a
/// shared store (Redis) when several gateways run; `InMemoryDedupStore` for one.
public protocol DedupStore: Sendable {
    /// The recorded answer for `key`, if it is still within its window.
    func lookup(_ key: String, now: ContinuousClock.Instant) async -> RecordedEvent?
    /// Records (or replaces) the answer for `key` until `expires`.
    func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant) async
}

/// What is remembered of a dispatched event: each recipient's final result.
public struct RecordedEvent: Sendable, Equatable {
    public var results: [RecipientResult]

    public init(results: [RecipientResult]) {
        self.results = results
    }
}

/// An in-process `DedupStore`: entries in arrival order, so the oldest are
/// swept first, and a capacity so memory stays bounded under any load (the
/// window holds for the most recent `capacity` events; older ones are
/// forgotten early rather than growing without limit).
public final class InMemoryDedupStore: DedupStore {
    private struct Storage {
        var entries: [String: (event: RecordedEvent, expires: ContinuousClock.Instant)] = [:]
        /// Keys in the order they were recorded; `head` is the oldest live one.
        var order: [String] = []
        var head = 0
    }

    private let storage = Locked(Storage())
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    public func lookup(_ key: String, now: ContinuousClock.Instant) async -> RecordedEvent? {
        storage.withLock { storage in
            guard let entry = storage.entries[key], entry.expires > now else { return nil }
            return entry.event
        }
    }

    public func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant) async {
        let now = ContinuousClock.now
        storage.withLock { storage in
            if storage.entries.updateValue((event, expires), forKey: key) == nil { storage.order.append(key) }
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
}
