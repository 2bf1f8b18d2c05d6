import PushGWSync

/// The events being dispatched, by dedup key, so that copies of one event
/// take turns: a copy that arrives while another is in flight waits for it
/// to be recorded, then reads the record like a later retry. It may name
/// other devices (a caller splitting a large group into batches keeps the
/// default `event_id`); those are sent, the devices already done are
/// answered from the record.
final class InFlightEvents: Sendable {
    /// Each key in flight, with what to run for each copy waiting for it.
    private let waiting = Locked<[String: [@Sendable () -> Void]]>([:])

    /// Takes `key` and returns true when no dispatch of it is in flight;
    /// else returns false and calls `again` once that dispatch is released
    /// (in a task of its own: the copy waited, and the releasing thread has
    /// its own answer to give). `again` should claim once more: another
    /// copy may have taken the turn first.
    func claim(_ key: String, orWhenReleased again: @escaping @Sendable () -> Void) -> Bool {
        waiting.withLock { waiting in
            guard waiting[key] != nil else {
                waiting[key] = []
                return true
            }
            waiting[key]!.append(again)
            return false
        }
    }

    /// Ends the claim on `key`, once its dispatch is recorded: the copies
    /// that waited try to claim it.
    func release(_ key: String) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { Task { waiter() } }
    }
}
