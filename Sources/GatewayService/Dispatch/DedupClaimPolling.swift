/// How a store across the network waits for a claim another owner holds:
/// it asks for the claim again (one round trip, the claim and the record
/// read together) after a short pause that grows to a bound, until it gets
/// it or the caller's deadline passes. The default `awaitClaim` of every
/// `DedupStore`; an in-process store is told of the release instead.
///
/// The pauses start at 10 ms and double up to 250 ms, each shortened by a
/// random part of up to half (so copies that wait together do not ask
/// together): a copy of an event whose first dispatch takes the usual tens
/// of milliseconds is answered soon after it is recorded, and one waiting
/// out a 30 s deadline asks about 130 times.
public enum DedupClaimPolling {
    /// The pause before each attempt: a value, so the schedule is tested
    /// without a store or a clock.
    public struct Backoff: Sendable, Equatable {
        public static let first: Duration = .milliseconds(10)
        public static let maximum: Duration = .milliseconds(250)

        /// The next pause before jitter.
        public private(set) var interval: Duration = Backoff.first

        public init() {}

        /// The pause before the next attempt, `jitter` in 0...1 taking up to
        /// half of it away; the one after is twice as long, up to `maximum`.
        public mutating func next(jitter: Double) -> Duration {
            let pause = interval - interval * (min(max(jitter, 0), 1) / 2)
            interval = min(interval * 2, Self.maximum)
            return pause
        }
    }

    /// Claims `key` on `store`, asking again while another owner holds it
    /// (see `DedupStore.awaitClaim`). The last attempt is made at
    /// `deadline`; its `.held` is the answer.
    public static func awaitClaim(on store: some DedupStore, _ key: String, by owner: DedupClaimOwner, holdFor: Duration,
                                  until deadline: ContinuousClock.Instant, answer: @escaping @Sendable (DedupClaim) -> Void) {
        Task {
            var backoff = Backoff()
            while true {
                // The caller was just told the claim is held: pause first.
                let pause = backoff.next(jitter: Double.random(in: 0...1))
                try? await Task.sleep(until: min(ContinuousClock.now + pause, deadline), clock: .continuous)
                let now = ContinuousClock.now
                let claim = await store.claim(key, by: owner, now: now, holdFor: holdFor)
                guard case .held = claim, now < deadline else { return answer(claim) }
            }
        }
    }
}
