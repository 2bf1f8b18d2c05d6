import PushGWSync

/// An in-process `DedupStore`: the claims of the events being dispatched
/// (`DedupClaimTable`) and the window's records (`DedupLog`) under one lock,
/// so that a claim and the read of the record are one step, as are a record
/// and the release of the claim. Every call answers before it returns, on
/// the caller's thread; a copy waiting for a claim is told of its release
/// (it then tries again in a task of its own: the releasing thread has its
/// own answer to give) and looks again when the claim lapses.
///
/// Records are kept in arrival order, so the oldest are swept first, within
/// a capacity in events and in bytes so memory stays bounded under any load
/// (the window holds for the most recent events that fit both; older ones
/// are forgotten early rather than growing without limit). Events are
/// packed into a log of large chunks, filed under a seeded 64-bit hash of
/// their key: about 0.2 KB for a two-device event, with no allocation of
/// its own. The packed bytes hold the key itself, so a hash shared by two
/// keys is never mistaken for a hit; the newer event then takes the slot,
/// as if the older one had reached the capacity.
public final class InMemoryDedupStore: DedupStore {
    private struct State {
        var log = DedupLog()
        var claims = DedupClaimTable()
    }

    private let state = Locked(State())
    public let capacity: Int
    /// Most bytes of packed records kept (about 0.2 KB for a two-device
    /// event, 33 KB for a 500-device one).
    public let byteCapacity: Int

    public init(capacity: Int = 100_000, byteCapacity: Int = 64 << 20) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    /// Answers before it returns, on the caller's thread.
    public func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration,
                      answer: @escaping @Sendable (DedupClaim) -> Void) {
        let hash = Self.hash(key)
        let (heldUntil, packed) = state.withLock { state in
            (state.claims.take(hash, owner: owner, now: now, expires: now + holdFor), state.log.lookup(hash, now: now).map(Array.init))
        }
        let recorded = Self.unpack(packed, key)
        answer(heldUntil == nil ? .claimed(recorded) : .held(recorded))
    }

    /// Waits to be told of the release, or for the claim's lapse, or the deadline.
    public func awaitClaim(_ key: String, by owner: DedupClaimOwner, holdFor: Duration, until deadline: ContinuousClock.Instant,
                           answer: @escaping @Sendable (DedupClaim) -> Void) {
        attempt(key, Self.hash(key), owner, holdFor, deadline, DedupClaimTicket(answer))
    }

    /// One try for a waiting copy: claims, or waits for the release (and
    /// looks again at the claim's lapse or the deadline), or gives up at the deadline.
    private func attempt(_ key: String, _ hash: UInt64, _ owner: DedupClaimOwner, _ holdFor: Duration,
                         _ deadline: ContinuousClock.Instant, _ ticket: DedupClaimTicket) {
        guard ticket.isPending else { return }
        let now = ContinuousClock.now
        let (heldUntil, packed) = state.withLock { state in
            let heldUntil = state.claims.take(hash, owner: owner, now: now, expires: now + holdFor)
            if heldUntil != nil, now < deadline {
                state.claims.wait(hash) { [self] in attempt(key, hash, owner, holdFor, deadline, ticket) }
            }
            return (heldUntil, state.log.lookup(hash, now: now).map(Array.init))
        }
        let recorded = Self.unpack(packed, key)
        guard let heldUntil else {
            // Given up meanwhile (the deadline's timer): the claim just taken is nobody's.
            if ticket.settle(.claimed(recorded)) == .gaveUp { release(hash, owner) }
            return
        }
        guard now < deadline else {
            _ = ticket.settle(.held(recorded))
            return
        }
        ticket.wake(at: min(heldUntil, deadline)) { [self] in attempt(key, hash, owner, holdFor, deadline, ticket) }
    }

    /// Records and releases before it returns, then calls `done` on the caller's thread.
    public func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                       releasing owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        let hash = Self.hash(key)
        let waiters = state.withLock { state in
            if keepFor > .zero { state.log.append(hash, key: key, event: event, expires: now + keepFor) }
            state.log.sweep(now: now, capacity: capacity, byteCapacity: byteCapacity)
            return state.claims.release(hash, owner: owner)
        }
        for waiter in waiters { Task { waiter() } }
        done(nil)
    }

    /// Releases before it returns, then calls `done` on the caller's thread.
    public func release(_ key: String, by owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        release(Self.hash(key), owner)
        done(nil)
    }

    private func release(_ hash: UInt64, _ owner: DedupClaimOwner) {
        let waiters = state.withLock { $0.claims.release(hash, owner: owner) }
        for waiter in waiters { Task { waiter() } }
    }

    /// Reads the record without claiming; answers before it returns.
    public func peek(_ key: String, now: ContinuousClock.Instant,
                     answer: @escaping @Sendable (Result<RecordedEvent?, DedupStoreFailure>) -> Void) {
        let hash = Self.hash(key)
        let packed = state.withLock { $0.log.lookup(hash, now: now).map(Array.init) }
        answer(.success(Self.unpack(packed, key)))
    }

    /// Always answers.
    public var currentFailure: DedupStoreFailure? { nil }

    /// Events currently remembered.
    public var count: Int { state.withLock { $0.log.count } }

    /// Bytes of records currently kept (live, or dead and not yet swept).
    public var recordBytes: Int { state.withLock { $0.log.bytes } }

    /// Who holds a claim on `key` that has not lapsed at `now`, if anyone.
    public func claimOwner(of key: String, now: ContinuousClock.Instant = .now) -> DedupClaimOwner? {
        let hash = Self.hash(key)
        return state.withLock { $0.claims.owner(of: hash, now: now) }
    }

    /// Claims held that have not lapsed at `now`.
    public func claimsHeld(now: ContinuousClock.Instant = .now) -> Int {
        state.withLock { $0.claims.live(now: now) }
    }

    /// The record packed under `key`'s hash, if it is `key`'s.
    private static func unpack(_ packed: [UInt8]?, _ key: String) -> RecordedEvent? {
        guard let packed, PackedRecordedEvent.isRecorded(packed[...], under: key) else { return nil }
        return PackedRecordedEvent.unpack(packed[...])
    }

    /// Swift's per-process seeded hash: not predictable from outside, so
    /// event ids cannot be chosen to collide.
    private static func hash(_ key: String) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }
}
