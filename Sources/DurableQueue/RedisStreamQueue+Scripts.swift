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

    /// KEYS: stream. ARGV: group, minimum idle time in milliseconds, the
    /// caller's own consumer name. Removes every other consumer of the
    /// group idle that long with nothing pending on it, in one step (so a
    /// consumer cannot take a message between the check and the removal,
    /// whose pending entry the removal would drop). Answers their names.
    static let removeIdleConsumersScript = RedisScript("""
        local removed = {}
        for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
          local fields = {}
          for i = 1, #consumer, 2 do fields[consumer[i]] = consumer[i + 1] end
          if fields['name'] ~= ARGV[3] and tonumber(fields['pending']) == 0 and tonumber(fields['idle']) >= tonumber(ARGV[2]) then
            redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], fields['name'])
            removed[#removed + 1] = fields['name']
          end
        end
        return removed
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
