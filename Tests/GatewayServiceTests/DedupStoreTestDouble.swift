import GatewayService
import PushGWSync

/// A test double of a dedup store across the network, over an in-process
/// store (its own, or one shared by several dispatchers as replicas share
/// Redis). Each operation works, fails at once, or stalls and then fails
/// as a client's command timeout would, as the test sets it; a held claim is
/// waited for by asking again, as a network store does.
final class DedupStoreTestDouble: DedupStore {
    enum Operation: CaseIterable, Sendable {
        case claim, record, release
    }

    enum Behaviour: Sendable {
        case works
        /// Answers `.unavailable` with the failure at once.
        case fails(DedupStoreFailure)
        /// Answers `.unavailable(.timedOut)` after the pause, from a task.
        case stalls(Duration)
    }

    static let down = DedupStoreFailure(.unreachable, "connection refused (test double)")

    let store: InMemoryDedupStore
    private let behaviours = Locked<[Operation: Behaviour]>([:])
    private let counted = Locked<[Operation: Int]>([:])

    init(over store: InMemoryDedupStore = InMemoryDedupStore()) {
        self.store = store
    }

    func set(_ behaviour: Behaviour, for operations: [Operation] = Operation.allCases) {
        behaviours.withLock { for operation in operations { $0[operation] = behaviour } }
    }

    /// Calls made of `operation`, whatever they answered.
    func calls(_ operation: Operation) -> Int { counted.withLock { $0[operation] ?? 0 } }

    /// Runs `work` when `operation` works; else answers `failed` as set.
    private func perform(_ operation: Operation, failed: @escaping @Sendable (DedupStoreFailure) -> Void, _ work: () -> Void) {
        counted.withLock { $0[operation, default: 0] += 1 }
        switch behaviours.withLock({ $0[operation] ?? .works }) {
        case .works:
            work()
        case let .fails(failure):
            failed(failure)
        case let .stalls(pause):
            Task {
                try? await Task.sleep(for: pause)
                failed(DedupStoreFailure(.timedOut, "no answer within \(pause) (test double)"))
            }
        }
    }

    func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration,
               answer: @escaping @Sendable (DedupClaim) -> Void) {
        perform(.claim, failed: { answer(.unavailable($0)) }) {
            store.claim(key, by: owner, now: now, holdFor: holdFor, answer: answer)
        }
    }

    func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                releasing owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        perform(.record, failed: { done($0) }) {
            store.record(key, event, now: now, keepFor: keepFor, releasing: owner, done: done)
        }
    }

    func release(_ key: String, by owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        perform(.release, failed: { done($0) }) { store.release(key, by: owner, done: done) }
    }

    /// The failure set for any operation, as a client that lost its connection reports it.
    var currentFailure: DedupStoreFailure? {
        behaviours.withLock { behaviours in
            for behaviour in behaviours.values {
                switch behaviour {
                case .works: continue
                case let .fails(failure): return failure
                case .stalls: return DedupStoreFailure(.timedOut, "commands time out (test double)")
                }
            }
            return nil
        }
    }
}
