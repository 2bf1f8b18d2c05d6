import OpenSSLCrypto

/// A Lua script run by its SHA-1 (`EVALSHA`), loaded on first use: when the
/// server does not have it (`NOSCRIPT`: first use, a restart, a failover,
/// `SCRIPT FLUSH`), it is sent again whole with `EVAL`, which loads it.
/// Keys go in `keys` (Redis Cluster routes by them), values in `arguments`.
public struct RedisScript: Sendable, Equatable {
    public let source: String
    /// The SHA-1 of `source`, as EVALSHA names it.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        sha1 = SHA1.hex(Array(source.utf8))
    }
}

extension RedisConnection {
    /// Runs `script`: EVALSHA, then EVAL if the server does not have it yet.
    public func run(_ script: RedisScript, keys: [[UInt8]] = [], arguments: [[UInt8]] = [],
                    deadline: ContinuousClock.Instant? = nil, completion: @escaping Completion) {
        let due = deadline ?? ContinuousClock.now + configuration.commandTimeout
        send(.evalSHA(script.sha1, keys: keys, arguments: arguments), deadline: due) { [self] result in
            if case let .failure(error) = result, error.serverCode == "NOSCRIPT" {
                send(.eval(script.source, keys: keys, arguments: arguments), deadline: due, completion: completion)
            } else {
                completion(result)
            }
        }
    }

    /// Runs `script` and waits for its reply: EVALSHA, then EVAL if the server does not have it yet.
    public func run(_ script: RedisScript, keys: [[UInt8]] = [], arguments: [[UInt8]] = [],
                    deadline: ContinuousClock.Instant? = nil) async throws(RedisError) -> RESPValue {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RESPValue, RedisError>, Never>) in
            run(script, keys: keys, arguments: arguments, deadline: deadline) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }
}
