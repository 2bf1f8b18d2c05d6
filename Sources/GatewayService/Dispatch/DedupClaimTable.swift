/// The claims of `InMemoryDedupStore`, by the seeded hash of their key, and
/// the copies waiting for each. A value, changed under the store's lock.
///
/// Two keys that share a hash share a claim: a copy of one then waits for
/// the other's dispatch, and reads its own record once it claims (the log
/// checks the key itself). With a seeded 64-bit hash that is a wait, never
/// a wrong answer, and it spares hashing the key's string twice per event.
struct DedupClaimTable {
    private struct Claim {
        var owner: DedupClaimOwner
        var expires: ContinuousClock.Instant
        /// What to run for each copy waiting, once the claim is released.
        var waiters: [@Sendable () -> Void]
    }

    private var claims: [UInt64: Claim] = [:]
    /// Past this many claims, lapsed ones are swept when a claim is taken
    /// (in one process claims are released, so only a claim taken and never
    /// given back lapses; this keeps even those bounded).
    private var sweepAt = 1024

    /// Claims held, lapsed ones not yet swept included.
    var count: Int { claims.count }

    /// Takes `hash` for `owner` until `expires`; nil when taken (or renewed,
    /// for its own owner), else when the other owner's claim lapses. A
    /// lapsed claim is taken over; the copies waiting for it are left to
    /// their own timers, which fire at its lapse.
    mutating func take(_ hash: UInt64, owner: DedupClaimOwner, now: ContinuousClock.Instant,
                       expires: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let index = claims.index(forKey: hash) {
            let held = claims.values[index]
            if held.owner == owner {
                claims.values[index].expires = expires
                return nil
            }
            if held.expires > now { return held.expires }
            claims.values[index] = Claim(owner: owner, expires: expires, waiters: [])
            return nil
        }
        if claims.count >= sweepAt { sweep(now: now) }
        claims[hash] = Claim(owner: owner, expires: expires, waiters: [])
        return nil
    }

    /// Ends `owner`'s claim on `hash` and returns what its waiting copies
    /// run; nothing when another owner holds it (its own lapsed, then taken over).
    mutating func release(_ hash: UInt64, owner: DedupClaimOwner) -> [@Sendable () -> Void] {
        guard let index = claims.index(forKey: hash), claims.values[index].owner == owner else { return [] }
        return claims.remove(at: index).value.waiters
    }

    /// Runs `waiter` when the claim on `hash` is released (not when it lapses).
    mutating func wait(_ hash: UInt64, _ waiter: @escaping @Sendable () -> Void) {
        claims[hash]?.waiters.append(waiter)
    }

    /// The owner of the live claim on `hash`, if any (tests).
    func owner(of hash: UInt64, now: ContinuousClock.Instant) -> DedupClaimOwner? {
        guard let claim = claims[hash], claim.expires > now else { return nil }
        return claim.owner
    }

    /// Claims that have not lapsed at `now`.
    func live(now: ContinuousClock.Instant) -> Int {
        claims.values.reduce(0) { $0 + ($1.expires > now ? 1 : 0) }
    }

    private mutating func sweep(now: ContinuousClock.Instant) {
        claims = claims.filter { $0.value.expires > now }
        sweepAt = max(1024, claims.count * 2)
    }
}
