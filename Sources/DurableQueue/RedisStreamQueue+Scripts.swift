import RedisClient

extension RedisStreamQueue {
    /// KEYS: stream, name's hash. ARGV: maximum length, payload, name,
    /// note, retention in seconds. Answers the entry's id, or `{0, length}`
    /// when the stream is full (nothing written).
    static let enqueueScript = RedisScript("""
        local length = redis.call('XLEN', KEYS[1])
        if length >= tonumber(ARGV[1]) then return {0, length} end
        local id = redis.call('XADD', KEYS[1], '*', 'name', ARGV[3], 'payload', ARGV[2])
        redis.call('HSET', KEYS[2], 'state', 'queued', 'id', id, 'note', ARGV[4])
        redis.call('EXPIRE', KEYS[2], ARGV[5])
        return id
        """)

    /// KEYS: stream, name's hash. ARGV: group, entry id, outcome, retention
    /// in seconds. Acknowledges and deletes the entry; notes the outcome
    /// when the name's hash is still this entry's (not a later enqueue's).
    static let acknowledgeScript = RedisScript("""
        redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
        redis.call('XDEL', KEYS[1], ARGV[2])
        if redis.call('HGET', KEYS[2], 'id') == ARGV[2] then
          redis.call('HSET', KEYS[2], 'state', ARGV[3])
          redis.call('EXPIRE', KEYS[2], ARGV[4])
        end
        return 1
        """)
}

/// A stream entry id, `MILLISECONDS-SEQUENCE`.
struct StreamID: Sendable, Equatable {
    let milliseconds: Int64
    let sequence: Int64

    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), let sequence = Int64(parts[1]) else { return nil }
        self.milliseconds = milliseconds
        self.sequence = sequence
    }
}
