import PushGWSync
import Synchronization

/// One copy waiting for a claim in `InMemoryDedupStore.awaitClaim`: answered
/// once, whichever comes first of the claim (after a release or a lapse) and
/// the deadline, and a timer for the next time to look again.
final class DedupClaimTicket: Sendable {
    enum Outcome: UInt8 {
        case pending, claimed, gaveUp
    }

    private let outcome = Atomic<UInt8>(Outcome.pending.rawValue)
    private let timer = Locked<Task<Void, Never>?>(nil)
    private let answer: @Sendable (DedupClaim) -> Void

    init(_ answer: @escaping @Sendable (DedupClaim) -> Void) {
        self.answer = answer
    }

    var isPending: Bool { outcome.load(ordering: .acquiring) == Outcome.pending.rawValue }

    /// Answers `claim` (claimed, or given up when held or unavailable)
    /// unless the ticket was answered already; returns the outcome it had
    /// before (`.pending` when this call answered).
    func settle(_ claim: DedupClaim) -> Outcome {
        let settled: Outcome
        if case .claimed = claim { settled = .claimed } else { settled = .gaveUp }
        let (exchanged, original) = outcome.compareExchange(expected: Outcome.pending.rawValue, desired: settled.rawValue,
                                                            ordering: .acquiringAndReleasing)
        guard exchanged else { return Outcome(rawValue: original)! }
        timer.withLock { $0?.cancel() }
        answer(claim)
        return .pending
    }

    /// Runs `body` at `instant` (the claim's lapse, or the deadline), in
    /// place of the time set before; not once the ticket is answered.
    func wake(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) {
        let task = Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            guard !Task.isCancelled else { return }
            body()
        }
        let earlier: Task<Void, Never>? = timer.withLock { current in
            defer { current = task }
            return current
        }
        earlier?.cancel()
        if !isPending { task.cancel() }
    }
}
