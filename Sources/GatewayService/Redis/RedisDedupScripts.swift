import RedisClient

/// The Lua scripts of `RedisDedupStore`, each one atomic step over the two
/// keys of one event (`KEYS[1]` its claim, `KEYS[2]` its record), which
/// share a hash tag so that a Redis Cluster runs them on one slot. Run by
/// SHA-1, loaded on first use (`RedisScript`).
enum RedisDedupScripts {
    /// Claim and read: takes the claim for `ARGV[1]` (the owner) for
    /// `ARGV[2]` ms unless another owner holds it (`SET NX PX`); the owner
    /// that holds it already renews it. Answers `{1 taken / 0 held, the
    /// record or nil}`.
    static let claim = RedisScript("""
        local taken = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
        if not taken and redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          taken = true
        end
        return {taken and 1 or 0, redis.call('GET', KEYS[2])}
        """)

    /// Record and release: writes the record `ARGV[3]` for `ARGV[2]` ms
    /// (nothing for 0: a window of 0 keeps nothing), then deletes the claim
    /// if `ARGV[1]` still holds it (a claim that lapsed and was taken by
    /// another owner is left alone). Answers 1.
    static let record = RedisScript("""
        if tonumber(ARGV[2]) > 0 then
          redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
        end
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('DEL', KEYS[1])
        end
        return 1
        """)

    /// Compare-and-delete of one key: deletes `KEYS[1]` if its value is
    /// `ARGV[1]`. Answers the number deleted. Releases a claim, and the
    /// APNs token's mint lock.
    static let compareAndDelete = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """)
}
