#if canImport(Glibc)
import Glibc
#endif
public import EventLoops
import Foundation
import NetworkSockets
import PushGWSync
import Synchronization

/// One connection to a Redis server, plain (`redis://`) or TLS
/// (`rediss://`), driven by an `EventLoop` (one of the caller's, shared
/// with other connections, or its own): non-blocking and pipelined. Every
/// command queued since the loop's last turn goes out in one write; the
/// replies come back in order and are matched to their commands in order.
///
/// - Connect: DNS, TCP and TLS on a short-lived thread of its own (the loop
///   never blocks), then `AUTH` (ACL user and password, or password only)
///   and `SELECT`, all within `connectTimeout`. Commands sent meanwhile wait.
/// - Deadlines: a command whose reply has not come by its deadline fails
///   with `timeout`, and since the order of the replies still to come is
///   then lost, the connection is dropped (its other commands fail with
///   `connectionLost`) and made again at once.
/// - Failures: a lost connection fails its commands with `connectionLost`
///   (retryable; they may have run). While the server is down, from the
///   failure until a reconnect succeeds, every command fails at once with
///   `notConnected` (or with the refusal itself when it is configuration:
///   a wrong password, a certificate refused). Reconnects back off from
///   `reconnectDelay` to `maximumReconnectDelay`.
///
/// Completions run on the loop thread (or on the caller's, when a command
/// fails at once): they must not block.
///
/// `@unchecked Sendable`: what other threads touch is the `inbox` (a lock)
/// and atomics; the socket, parser, queues and phase are touched only by the
/// loop thread, once `adopt` has handed the connection over. The connecting
/// thread touches none of it: it hands its socket through the inbox.
public final class RedisConnection: @unchecked Sendable {
    /// A callback with one command's reply.
    public typealias Completion = @Sendable (Result<RESPValue, RedisError>) -> Void

    public let configuration: RedisConfiguration
    let loop: EventLoop
    let ownsLoop: Bool
    let tls: TLSClientContext?
    /// `configuration.url` without its password, for messages.
    let server: String

    struct Inbox {
        var queued: [PendingCommand] = []
        var wakePending = false
        /// Set while the server is down: what a command sent now fails with.
        var down: RedisError?
        var closeRequested = false
        var closed = false
        /// The connecting thread's socket or failure, for the attempt of that generation.
        var connectResult: (generation: Int, result: Result<any ByteStreamSocket, RedisError>)?
        /// Commands queued and in flight, against `maximumPending`.
        var pending = 0
    }

    let inbox = Locked(Inbox())
    let connectedFlag = Atomic<Bool>(false)

    // Loop-thread state.
    enum Phase {
        /// A connecting thread works on attempt `generation`.
        case connecting(generation: Int, deadline: ContinuousClock.Instant)
        /// AUTH and SELECT sent; their replies due by `deadline`.
        case handshaking(deadline: ContinuousClock.Instant)
        case ready
        /// Down: the next attempt at `until`.
        case waitingToReconnect(until: ContinuousClock.Instant)
    }

    var phase: Phase
    var generation = 0
    var socket: (any ByteStreamSocket)?
    var parser: RESPParser
    /// Replies of the handshake still to come, before any command's.
    var handshakeReplies = 0
    /// Sent (or being written), oldest first; answered entries are nil until the front is compacted.
    var inFlight: [PendingCommand?] = []
    var inFlightHead = 0
    /// Taken from the inbox while not ready, to be written once ready.
    var waiting: [PendingCommand] = []
    var output: [UInt8] = []
    var outputOffset = 0
    /// The last write would block: poll for writability.
    var wantsWriteReadiness = false
    /// TLS must write before it reads on.
    var readNeedsWritable = false
    var reconnectDelay: Duration
    var nextTimerCheck = ContinuousClock.now
    static let timerResolution: Duration = .milliseconds(10)
    var ended = false

    /// Creates the connection and starts connecting. It lives, reconnecting
    /// as needed, until `close()`.
    ///
    /// - Parameter loop: the loop to run on; nil starts one for this
    ///   connection alone (retired at `close()`).
    public init(configuration: RedisConfiguration, loop: EventLoop? = nil) throws(RedisError) {
        self.configuration = configuration
        server = "\(configuration.url.host):\(configuration.url.port)"
        parser = RESPParser(limits: configuration.parserLimits)
        reconnectDelay = configuration.reconnectDelay
        if configuration.url.usesTLS {
            do throws(SocketError) {
                tls = try TLSClientContext(TLSClientSettings(caFile: configuration.caFile, verifyPeer: configuration.verifyPeer))
            } catch {
                throw RedisError(error, server: "\(configuration.url.host):\(configuration.url.port)")
            }
        } else {
            tls = nil
        }
        phase = .connecting(generation: 0, deadline: ContinuousClock.now + configuration.connectTimeout)
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            do {
                self.loop = try EventLoop(name: "pushgw-redis")
            } catch {
                throw RedisError(.protocolError, "no event loop for Redis: \(error)")
            }
            ownsLoop = true
        }
        guard self.loop.adopt(self) else { throw RedisError(.shutdown, "the event loop for Redis has stopped") }
        startConnectThread(generation: 0)
    }

    /// True while connected, authenticated and ready for commands.
    public var isConnected: Bool { connectedFlag.load(ordering: .relaxed) }

    /// While the server is down (from a lost connection or a failed connect
    /// until a reconnect succeeds): what every command sent now fails with.
    /// nil while connected, and while a first connect or an immediate
    /// reconnect (after a deadline) is under way.
    public var failureWhileDown: RedisError? { inbox.withLock { $0.down } }

    /// True on the thread of the loop this connection runs on: a command
    /// sent from there is answered on the same thread.
    public var isOnCurrentLoop: Bool { loop.isCurrent }

    /// Sends one command. `completion` gets its reply (a top-level error
    /// reply as a `.server` error), or its failure. By `deadline` (default:
    /// now + `commandTimeout`) the reply must have come.
    public func send(_ command: RedisCommand, deadline: ContinuousClock.Instant? = nil, completion: @escaping Completion) {
        var bytes: [UInt8] = []
        command.encode(into: &bytes)
        let pending = PendingCommand(bytes: bytes, deadline: deadline ?? ContinuousClock.now + configuration.commandTimeout,
                                     completion: completion)
        enqueue(CollectionOfOne(pending))
    }

    /// Sends several commands at once, written together and answered in
    /// order; `completion` gets one result per command, in order, once all
    /// are in. No transaction: use MULTI/EXEC or a script for atomicity.
    public func send(_ commands: [RedisCommand], deadline: ContinuousClock.Instant? = nil,
                     completion: @escaping @Sendable ([Result<RESPValue, RedisError>]) -> Void) {
        guard !commands.isEmpty else { return completion([]) }
        let due = deadline ?? ContinuousClock.now + configuration.commandTimeout
        let gathered = Locked(Gathering<Result<RESPValue, RedisError>>(
            count: commands.count, parts: commands.count, missing: .failure(RedisError(.protocolError, "no reply"))))
        let pending = commands.enumerated().map { index, command in
            var bytes: [UInt8] = []
            command.encode(into: &bytes)
            return PendingCommand(bytes: bytes, deadline: due) { result in
                if let all = gathered.withLock({ $0.add([index], [result]) }) { completion(all) }
            }
        }
        enqueue(pending)
    }

    /// Sends one command and waits for its reply.
    public func send(_ command: RedisCommand, deadline: ContinuousClock.Instant? = nil) async throws(RedisError) -> RESPValue {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RESPValue, RedisError>, Never>) in
            send(command, deadline: deadline) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends several commands at once (pipelined) and waits for every reply, in order.
    public func send(_ commands: [RedisCommand], deadline: ContinuousClock.Instant? = nil) async -> [Result<RESPValue, RedisError>] {
        await withCheckedContinuation { continuation in
            send(commands, deadline: deadline) { continuation.resume(returning: $0) }
        }
    }

    /// Fails every queued and in-flight command with `shutdown` and closes
    /// the connection; later commands fail at once.
    public func close() {
        inbox.withLock { $0.closeRequested = true }
        loop.wake()
    }

    /// Queues commands for the loop, or fails them at once (closed, down, overloaded).
    private func enqueue(_ commands: some Collection<PendingCommand>) {
        let (refusal, wake) = inbox.withLock { state -> (RedisError?, Bool) in
            if state.closed || state.closeRequested { return (RedisError(.shutdown, "the Redis connection is closed"), false) }
            if let down = state.down { return (down, false) }
            guard state.pending + commands.count <= configuration.maximumPending else {
                return (RedisError(.overloaded, "\(state.pending) Redis commands pending"), false)
            }
            state.pending += commands.count
            state.queued.append(contentsOf: commands)
            defer { state.wakePending = true }
            return (nil, !state.wakePending)
        }
        if let refusal {
            for command in commands { command.completion(.failure(refusal)) }
        } else if wake {
            loop.wake()
        }
    }
}

extension RedisError {
    /// The socket layer's failure to connect, as a Redis error.
    init(_ error: SocketError, server: String) {
        switch error.kind {
        case .certificateRejected: self.init(.certificateRejected, error.detail)
        case .connectFailed: self.init(.connectFailed, error.detail)
        default: self.init(.protocolError, "TLS with Redis at \(server): \(error.detail)")
        }
    }
}
