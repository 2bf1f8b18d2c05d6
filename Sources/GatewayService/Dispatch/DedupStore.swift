/// Where events are claimed while they are sent and their outcomes
/// remembered for the dedup window, so that a copy or a retry of an
/// `event_id` is not sent twice: `InMemoryDedupStore` for one process, a
/// shared store (Redis) for several replicas. The notify pipeline
/// (`NotifyRun`) goes through these calls and nothing else.
///
/// The life of a key:
///
/// 1. `claim` takes the key for one dispatch (`owner`) and reads its record
///    in the same atomic step. The claim lasts `holdFor` at most, so one
///    left by a replica that died lapses by itself.
/// 2. While another owner holds it, the caller waits with `awaitClaim`: it
///    claims as soon as the claim is released or lapses, and gives up at
///    its deadline (the request's).
/// 3. `record` writes the event's outcomes for the window and releases the
///    owner's claim in the same step, so a waiter that then claims reads
///    them; `release` gives a claim up without a record.
///
/// Every call hands its answer to a closure, so that the pipeline goes on at
/// once when the store answers at once: an in-process store calls it before
/// returning, on the caller's thread (an event that needs no wait is then
/// answered with no task at all); a store across the network calls it later,
/// from any thread, within its command timeout. A store that cannot answer
/// says so (`.unavailable`, `DedupStoreFailure`): it never leaves a call
/// unanswered. A store written with async calls conforms through
/// `AsyncDedupStore`; a store that waits by asking again gets `awaitClaim`
/// from `DedupClaimPolling`.
///
/// Keys are the pipeline's (`DedupKey`: app, `event_id` and a fingerprint of
/// the message, any bytes); a shared store adds its prefix and keeps a key's
/// claim and record together: in Redis, `PREFIX{D}:claim` and
/// `PREFIX{D}:record`, where D is a hex digest of the key (an `event_id` may
/// hold a brace, which would cut the hash tag short), one Lua script per
/// call over both, so Redis Cluster serves them from one slot. The record
/// keeps the key itself, so that two keys with one digest are told apart.
public protocol DedupStore: Sendable {
    /// Claims `key` for `owner` for `holdFor` from `now` unless another owner
    /// holds a claim on it that has not lapsed, and reads what the window
    /// recorded of the key, in one atomic step. Answers once: `.claimed` or
    /// `.held` with the record (nil when none is within the window), or
    /// `.unavailable`. An owner that claims a key it holds already gets it
    /// again (the claim renewed).
    func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration,
               answer: @escaping @Sendable (DedupClaim) -> Void)

    /// Claims `key` as `claim` does, waiting while another owner holds it:
    /// answers `.claimed` as soon as the claim is released or lapses,
    /// `.held` once `deadline` has passed with the claim still held, or
    /// `.unavailable`. The default (`DedupClaimPolling`) asks again after
    /// short pauses; an in-process store is told of the release.
    func awaitClaim(_ key: String, by owner: DedupClaimOwner, holdFor: Duration, until deadline: ContinuousClock.Instant,
                    answer: @escaping @Sendable (DedupClaim) -> Void)

    /// Records (or replaces) `event` for `key` for `keepFor` from `now`, and
    /// releases `owner`'s claim on it, in one step; answers nil when both
    /// are done. The record is written even when the claim lapsed (another
    /// owner's claim is then left alone). `keepFor` may be zero (a window
    /// of 0): nothing is kept and the claim is released.
    func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                releasing owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void)

    /// Releases `owner`'s claim on `key` without recording anything (an
    /// event answered from the record, or refused); another owner's claim
    /// is left alone. Answers nil once done.
    func release(_ key: String, by owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void)

    /// What the window recorded of `key` at `now` (nil: nothing), read
    /// without claiming it: a status read never stands in the way of the
    /// dispatch that sends the event. The default claims and releases
    /// (`DedupStore+Lookup`) for a store that has no plain read.
    func peek(_ key: String, now: ContinuousClock.Instant, answer: @escaping @Sendable (Result<RecordedEvent?, DedupStoreFailure>) -> Void)

    /// nil while the store answers; else what its last call or its own
    /// check of the connection met (`/readyz` says so). Read on every
    /// readiness probe: answers from what the store knows, without waiting.
    var currentFailure: DedupStoreFailure? { get }
}

extension DedupStore {
    /// Waits by asking again (`DedupClaimPolling`), as a store across the network does.
    public func awaitClaim(_ key: String, by owner: DedupClaimOwner, holdFor: Duration, until deadline: ContinuousClock.Instant,
                           answer: @escaping @Sendable (DedupClaim) -> Void) {
        DedupClaimPolling.awaitClaim(on: self, key, by: owner, holdFor: holdFor, until: deadline, answer: answer)
    }

    /// `claim(_:by:now:holdFor:answer:)`, awaited.
    public func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant = .now,
                      holdFor: Duration) async -> DedupClaim {
        await withCheckedContinuation { continuation in
            claim(key, by: owner, now: now, holdFor: holdFor) { continuation.resume(returning: $0) }
        }
    }

    /// `awaitClaim(_:by:holdFor:until:answer:)`, awaited.
    public func awaitClaim(_ key: String, by owner: DedupClaimOwner, holdFor: Duration,
                           until deadline: ContinuousClock.Instant) async -> DedupClaim {
        await withCheckedContinuation { continuation in
            awaitClaim(key, by: owner, holdFor: holdFor, until: deadline) { continuation.resume(returning: $0) }
        }
    }

    /// `record(_:_:now:keepFor:releasing:done:)`, awaited.
    @discardableResult
    public func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant = .now, keepFor: Duration,
                       releasing owner: DedupClaimOwner) async -> DedupStoreFailure? {
        await withCheckedContinuation { continuation in
            record(key, event, now: now, keepFor: keepFor, releasing: owner) { continuation.resume(returning: $0) }
        }
    }

    /// `release(_:by:done:)`, awaited.
    @discardableResult
    public func release(_ key: String, by owner: DedupClaimOwner) async -> DedupStoreFailure? {
        await withCheckedContinuation { continuation in release(key, by: owner) { continuation.resume(returning: $0) } }
    }
}

/// A store's answer to a claim.
public enum DedupClaim: Sendable, Equatable {
    /// The key is the caller's until it records, releases, or the claim
    /// lapses; with what the window recorded of it (nil: nothing).
    case claimed(RecordedEvent?)
    /// Another dispatch (on this replica or another) holds the key; with
    /// what the window recorded of it so far.
    case held(RecordedEvent?)
    /// The store could not answer: nothing was claimed.
    case unavailable(DedupStoreFailure)
}

/// Why a dedup store could not answer. Never holds a secret (no URL with
/// its password, no command's arguments).
public struct DedupStoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// An open set of reasons, for logs and tests (`DESIGN`: open value sets are structs).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// No connection to the store (refused, reset, not yet reconnected).
        public static let unreachable = Kind("unreachable")
        /// The store did not answer within its command timeout, or before the caller's deadline.
        public static let timedOut = Kind("timed_out")
        /// The store answered with an error (out of memory, read-only replica, refused credentials…).
        public static let refused = Kind("refused")
    }

    public let kind: Kind
    /// What happened, for an operator.
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind): \(detail)" }
}
