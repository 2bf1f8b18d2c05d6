public import APNsHTTP2
public import RedisClient

/// The `SharedProviderTokenStore` of a fleet on Redis: the APNs provider
/// token each team and key shares, and its mint lock, one key and one
/// command per operation (the keys of `ProviderTokenStoreKey.storeKeys`,
/// with the hash tag `{TEAM.KEY}`):
///
/// | operation | command |
/// |---|---|
/// | `token(for:)` | `GET <token>` |
/// | `acquireMintLock` | `SET <lock> <owner> NX PX <ms>` |
/// | `releaseMintLock` | compare-and-delete of `<lock>` by its owner (`RedisDedupScripts.compareAndDelete`) |
/// | `publish` | `SET <token> "<iat> <jwt>" PX <ms>` |
///
/// Every failure to get an answer, and every error reply, is
/// `.unavailable` with the client's reason (never a token); an entry that
/// is not a token (or not a string: `WRONGTYPE`) is `.malformedEntry`.
/// Each command has the connection's command timeout.
///
/// Thread-safety: `Sendable`; the connection is.
public final class RedisProviderTokenStore: SharedProviderTokenStore {
    private let connection: RedisConnection
    /// Put before every key.
    public let prefix: String

    /// - Parameter connection: the store's connection; the caller closes it.
    public init(connection: RedisConnection, prefix: String) {
        self.connection = connection
        self.prefix = prefix
    }

    public func token(for key: ProviderTokenStoreKey) async throws(SharedProviderTokenStoreError) -> SharedProviderToken? {
        let reply: RESPValue
        do {
            reply = try await connection.send(RedisCommand("GET", key.storeKeys(prefix: prefix).token))
        } catch {
            if error.serverCode == "WRONGTYPE" { throw .malformedEntry }
            throw .unavailable(error.description)
        }
        switch reply {
        case .null:
            return nil
        case let .bulkString(bytes):
            guard let text = String(validating: bytes, as: UTF8.self), let token = SharedProviderToken(storedValue: text) else {
                throw .malformedEntry
            }
            return token
        default:
            throw .malformedEntry
        }
    }

    public func acquireMintLock(for key: ProviderTokenStoreKey, owner: String,
                                expiresAfter: Duration) async throws(SharedProviderTokenStoreError) -> Bool {
        let command = RedisCommand(arguments: [Array("SET".utf8), Array(key.storeKeys(prefix: prefix).lock.utf8), Array(owner.utf8),
                                               Array("NX".utf8), Array("PX".utf8),
                                               RedisDedupStore.milliseconds(expiresAfter, atLeast: 1)])
        let reply = try await send(command)
        switch reply {
        case .null: return false
        case .simpleString("OK"): return true
        default: throw .unavailable("SET NX answered \(reply.shape)")
        }
    }

    public func releaseMintLock(for key: ProviderTokenStoreKey, owner: String) async throws(SharedProviderTokenStoreError) {
        do {
            _ = try await connection.run(RedisDedupScripts.compareAndDelete, keys: [Array(key.storeKeys(prefix: prefix).lock.utf8)],
                                         arguments: [Array(owner.utf8)])
        } catch {
            throw .unavailable(error.description)
        }
    }

    public func publish(_ token: SharedProviderToken, for key: ProviderTokenStoreKey,
                        expiresAfter: Duration) async throws(SharedProviderTokenStoreError) {
        let command = RedisCommand(arguments: [Array("SET".utf8), Array(key.storeKeys(prefix: prefix).token.utf8),
                                               Array(token.storedValue.utf8), Array("PX".utf8),
                                               RedisDedupStore.milliseconds(expiresAfter, atLeast: 1)])
        _ = try await send(command)
    }

    private func send(_ command: RedisCommand) async throws(SharedProviderTokenStoreError) -> RESPValue {
        do {
            return try await connection.send(command)
        } catch {
            throw .unavailable(error.description)
        }
    }
}
