import Foundation
import Synchronization

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

/// An in-process `DedupStore`: a dictionary with expiry, swept as it grows.
public final class InMemoryDedupStore: DedupStore {
    private let entries = Mutex<[String: (event: RecordedEvent, expires: ContinuousClock.Instant)]>([:])
    /// Beyond this many entries, expired ones are swept on the next record.
    private let sweepThreshold: Int

    public init(sweepThreshold: Int = 10_000) {
        self.sweepThreshold = sweepThreshold
    }

    public func lookup(_ key: String, now: ContinuousClock.Instant) async -> RecordedEvent? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if entry.expires <= now {
                entries[key] = nil
                return nil
            }
            return entry.event
        }
    }

    public func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant) async {
        entries.withLock { entries in
            entries[key] = (event, expires)
            if entries.count > sweepThreshold {
                let now = ContinuousClock.now
                entries = entries.filter { $0.value.expires > now }
            }
        }
    }

    public var count: Int { entries.withLock { $0.count } }
}
