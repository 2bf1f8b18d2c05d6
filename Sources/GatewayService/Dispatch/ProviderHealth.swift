import PushGWSync
import Synchronization

/// Which of the apps' providers are known bad, for `/readyz`: the last word
/// from the provider was that our side is misconfigured (APNs
/// `InvalidProviderToken`, `BadTopic`…; FCM's refusal of our project or
/// credentials), or a failure that does not pass by itself (the provider's
/// certificate does not verify, it does not speak HTTP/2, credentials
/// cannot be made). The next notification the provider takes clears it,
/// and so does time: a mark older than `memory` is forgotten, because an
/// instance taken out of a load balancer's rotation gets no notification
/// that could clear it. Network failures and provider outages are retried,
/// not counted here.
final class ProviderHealth: Sendable {
    /// "app provider" → what was wrong, and when it was last seen.
    private let bad = Locked<[String: (reason: String, at: ContinuousClock.Instant)]>([:])
    private let memory: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    /// How many entries `bad` holds, read without the lock on every success.
    private let badCount = Atomic<Int>(0)

    init(memory: Duration = .seconds(60), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.memory = memory
        self.now = now
    }

    /// The provider of `app` refused our configuration, or cannot be used.
    /// Returns true when this is news (the provider was not marked bad, or
    /// for another reason): what is worth a log line, once, not per event.
    @discardableResult
    func failed(app: String, provider: String, reason: String) -> Bool {
        let now = now()
        return bad.withLock { entries in
            let key = "\(app) \(provider)"
            let before = entries[key]
            entries[key] = (reason, now)
            badCount.store(entries.count, ordering: .relaxed)
            guard let before else { return true }
            return before.reason != reason || now - before.at >= memory
        }
    }

    /// The provider of `app` took a notification (or judged a token): it works.
    func worked(app: String, provider: String) {
        guard badCount.load(ordering: .relaxed) > 0 else { return }
        bad.withLock { entries in
            entries["\(app) \(provider)"] = nil
            badCount.store(entries.count, ordering: .relaxed)
        }
    }

    /// "app provider: reason" for each provider known bad, sorted; empty when none is.
    var knownBad: [String] {
        let oldest = now() - memory
        return bad.withLock { entries in
            entries = entries.filter { $0.value.at > oldest }
            badCount.store(entries.count, ordering: .relaxed)
            return entries.map { "\($0.key): \($0.value.reason)" }.sorted()
        }
    }
}
