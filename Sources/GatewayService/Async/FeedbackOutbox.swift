import Foundation

/// The feedback deliveries waiting for the delivery thread, each with the
/// time it is due: a retry waits out its back-off here, without holding the
/// thread from the others.
///
/// `@unchecked Sendable`: `deliveries` and `closed` are read and written
/// only with `condition` locked.
final class FeedbackOutbox: @unchecked Sendable {
    struct Delivery {
        let target: FeedbackWebhooks.Target
        let body: [UInt8]
        let attempt: Int
        let due: ContinuousClock.Instant
    }

    private let condition = NSCondition()
    private var deliveries: [Delivery] = []
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds one; false (dropped) when `capacity` wait already or the outbox is closed.
    func add(_ delivery: Delivery) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, deliveries.count < capacity else { return false }
        deliveries.append(delivery)
        condition.signal()
        return true
    }

    /// The earliest delivery once it is due, blocking until then; nil once closed.
    func next() -> Delivery? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if let index = deliveries.indices.min(by: { deliveries[$0].due < deliveries[$1].due }) {
                let wait = deliveries[index].due - .now
                if wait <= .zero { return deliveries.remove(at: index) }
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            } else {
                condition.wait()
            }
        }
        return nil
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
