#if canImport(Glibc)
import Glibc
#endif
package import EventLoops
import Foundation
import NetworkSockets
import PushGWSync

/// The connection's part in its event loop: connects and reconnects,
/// the handshake, writing the queued commands, matching replies, deadlines.
extension RedisConnection: EventLoopConnection {
    /// On the loop thread, before it polls.
    package func turn(buffer: inout [UInt8]) -> EventLoopConnectionTurn? {
        guard !ended else { return nil }
        let (arrived, closeRequested, connectResult) = inbox.withLock { state in
            state.wakePending = false
            var arrived: [PendingCommand] = []
            swap(&arrived, &state.queued)
            defer { state.connectResult = nil }
            return (arrived, state.closeRequested, state.connectResult)
        }
        if closeRequested {
            for command in arrived { command.completion(.failure(RedisError(.shutdown, "the Redis connection is closed"))) }
            end()
            return nil
        }
        let now = ContinuousClock.now
        switch phase {
        case let .connecting(generation, deadline):
            if let connectResult, connectResult.generation == generation {
                connected(connectResult.result, now: now)
            } else if now >= deadline {
                connectFailed(RedisError(.connectFailed, "cannot connect to Redis at \(server) within \(configuration.connectTimeout)"))
            }
        case let .waitingToReconnect(until):
            if now >= until { startConnect(now: now) }
        case let .handshaking(deadline):
            if now >= deadline {
                connectFailed(RedisError(.connectFailed, "Redis at \(server) did not answer AUTH/SELECT within \(configuration.connectTimeout)"))
            }
        case .ready:
            break
        }
        if !arrived.isEmpty { take(arrived) }
        if now >= nextTimerCheck {
            nextTimerCheck = now + Self.timerResolution
            checkDeadlines(now: now)
        }
        guard let socket else { return EventLoopConnectionTurn(descriptor: -1, events: 0, buffered: false) }
        if !flush() { return self.socket == nil ? EventLoopConnectionTurn(descriptor: -1, events: 0, buffered: false) : nil }
        let wantsToWrite = wantsWriteReadiness || readNeedsWritable
        return EventLoopConnectionTurn(descriptor: socket.descriptor, events: Int16(POLLIN) | (wantsToWrite ? Int16(POLLOUT) : 0),
                                       buffered: socket.hasBufferedInput)
    }

    /// On the loop thread, after the poll: reads and matches replies, writes what waited for writability.
    package func serve(revents: Int16, buffer: inout [UInt8]) {
        guard !ended, let socket else { return }
        let readable = revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 || socket.hasBufferedInput || readNeedsWritable
        if readable { read(socket, &buffer) }
        if self.socket != nil, wantsWriteReadiness { _ = flush() }
    }

    /// `poll` failed on the loop: every command fails, and the connection ends.
    package func loopFailed(_ reason: String) {
        drop(RedisError(.connectionLost, reason), serverDown: true)
        end()
    }

    // MARK: Connecting

    func startConnect(now: ContinuousClock.Instant) {
        generation += 1
        phase = .connecting(generation: generation, deadline: now + configuration.connectTimeout)
        startConnectThread(generation: generation)
    }

    /// DNS, TCP and TLS on a thread of its own; the result goes to the loop through the inbox.
    func startConnectThread(generation: Int) {
        let thread = Thread { [self] in
            ThreadName.setCurrent("pushgw-redis-connect")
            let url = configuration.url
            let result: Result<any ByteStreamSocket, RedisError>
            do throws(SocketError) {
                if let tls {
                    result = .success(try TLSSocket.connect(host: url.host, port: url.port, context: tls, timeout: configuration.connectTimeout))
                } else {
                    result = .success(try TCPSocket.connect(host: url.host, port: url.port, timeout: configuration.connectTimeout))
                }
            } catch {
                result = .failure(RedisError(error, server: server))
            }
            inbox.withLock { $0.connectResult = (generation, result) }
            loop.wake()
        }
        thread.start()
    }

    /// The connecting thread is done: on success, AUTH and SELECT go first.
    private func connected(_ result: Result<any ByteStreamSocket, RedisError>, now: ContinuousClock.Instant) {
        switch result {
        case let .failure(error):
            connectFailed(error)
        case let .success(socket):
            self.socket = socket
            parser = RESPParser(limits: configuration.parserLimits)
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            handshakeReplies = 0
            let url = configuration.url
            if let password = url.password {
                let command = url.user.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password)
                command.encode(into: &output)
                handshakeReplies += 1
            } else if let user = url.user {
                // A user without a password: an ACL user with `nopass`.
                RedisCommand("AUTH", user, "").encode(into: &output)
                handshakeReplies += 1
            }
            if url.database != 0 {
                RedisCommand("SELECT", String(url.database)).encode(into: &output)
                handshakeReplies += 1
            }
            if handshakeReplies == 0 {
                becomeReady()
            } else {
                phase = .handshaking(deadline: now + configuration.connectTimeout)
            }
        }
    }

    /// Connected and logged in: the commands that waited are written now.
    private func becomeReady() {
        phase = .ready
        reconnectDelay = configuration.reconnectDelay
        inbox.withLock { $0.down = nil }
        connectedFlag.store(true, ordering: .relaxed)
        let ready = waiting
        waiting.removeAll()
        take(ready)
    }

    /// A connect, or its handshake, failed: what waited fails, and the server is down until a reconnect succeeds.
    private func connectFailed(_ error: RedisError) {
        drop(error, serverDown: true)
    }

    // MARK: Commands and replies

    /// New commands: written when ready, else kept for the connect.
    private func take(_ commands: [PendingCommand]) {
        guard case .ready = phase else {
            waiting.append(contentsOf: commands)
            return
        }
        for command in commands {
            output.append(contentsOf: command.bytes)
            inFlight.append(command)
        }
    }

    /// Writes until done or "would block"; false when the connection was dropped.
    private func flush() -> Bool {
        guard let socket else { return true }
        while outputOffset < output.count {
            let result = output.withUnsafeBytes { socket.write(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            switch result {
            case let .bytes(count):
                outputOffset += count
            case let .wouldBlock(wantsWrite):
                wantsWriteReadiness = wantsWrite
                return true
            case .closed:
                drop(RedisError(.connectionLost, "Redis at \(server) closed the connection"), serverDown: true)
                return false
            case let .failed(message):
                drop(RedisError(.connectionLost, "writing to Redis at \(server): \(message)"), serverDown: true)
                return false
            }
        }
        wantsWriteReadiness = false
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
        return true
    }

    /// Reads until "would block", handing each complete reply to its command.
    private func read(_ socket: any ByteStreamSocket, _ buffer: inout [UInt8]) {
        readNeedsWritable = false
        while true {
            let result = buffer.withUnsafeMutableBytes { socket.read(into: $0) }
            switch result {
            case let .bytes(count):
                buffer.withUnsafeBytes { parser.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                guard deliverReplies() else { return }
            case let .wouldBlock(wantsWrite):
                readNeedsWritable = wantsWrite
                return
            case .closed:
                drop(RedisError(.connectionLost, "Redis at \(server) closed the connection"), serverDown: true)
                return
            case let .failed(message):
                drop(RedisError(.connectionLost, "reading from Redis at \(server): \(message)"), serverDown: true)
                return
            }
        }
    }

    /// Matches the parsed replies to the handshake, then to the commands in
    /// order; false when the connection was dropped.
    private func deliverReplies() -> Bool {
        var completed = 0
        defer { if completed > 0 { inbox.withLock { $0.pending -= completed } } }
        while true {
            let reply: RESPValue
            do throws(RESPProtocolError) {
                guard let next = try parser.next() else { return true }
                reply = next
            } catch {
                drop(RedisError(.protocolError, "Redis at \(server): \(error)"), serverDown: false)
                return false
            }
            if handshakeReplies > 0 {
                handshakeReplies -= 1
                if case let .error(message) = reply {
                    drop(RedisError(.authenticationFailed, "Redis at \(server) refused the login: \(message)"), serverDown: true)
                    return false
                }
                if handshakeReplies == 0 { becomeReady() }
                continue
            }
            guard inFlightHead < inFlight.count, let command = inFlight[inFlightHead] else {
                drop(RedisError(.protocolError, "Redis at \(server) sent a reply no command waits for"), serverDown: false)
                return false
            }
            inFlight[inFlightHead] = nil
            inFlightHead += 1
            if inFlightHead == inFlight.count {
                inFlight.removeAll(keepingCapacity: true)
                inFlightHead = 0
            }
            completed += 1
            if case let .error(message) = reply {
                command.completion(.failure(RedisError(.server, message)))
            } else {
                command.completion(.success(reply))
            }
        }
    }

    /// Fails commands past their deadline. One in flight drops the
    /// connection (the order of the replies still to come is lost); one
    /// still waiting for the connect fails as not sent (`notConnected`).
    private func checkDeadlines(now: ContinuousClock.Instant) {
        if !waiting.isEmpty, waiting.contains(where: { $0.deadline <= now }) {
            var expired = 0
            waiting.removeAll { command in
                guard command.deadline <= now else { return false }
                command.completion(.failure(RedisError(.notConnected, "not connected to Redis at \(server) by the command's deadline")))
                expired += 1
                return true
            }
            inbox.withLock { $0.pending -= expired }
        }
        if inFlight[inFlightHead...].contains(where: { $0.map { $0.deadline <= now } ?? false }) {
            drop(RedisError(.timeout, "no reply from Redis at \(server) by the command's deadline"), serverDown: false, now: now)
        }
    }

    /// Closes the socket and fails what it carried. `serverDown`: the
    /// server is unreachable (lost, refused): commands fail at once until a
    /// reconnect succeeds, which waits a backoff. Otherwise (a deadline, a
    /// protocol error) the connection is made again at once.
    func drop(_ reason: RedisError, serverDown: Bool, now: ContinuousClock.Instant = .now) {
        socket = nil
        connectedFlag.store(false, ordering: .relaxed)
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
        wantsWriteReadiness = false
        readNeedsWritable = false
        handshakeReplies = 0
        parser = RESPParser(limits: configuration.parserLimits)
        var failed = inFlight[inFlightHead...].compactMap { $0 }
        inFlight.removeAll()
        inFlightHead = 0
        // What never reached the server fails as "not connected", retryable unless the reason is configuration.
        let downError = reason.isRetryable || reason.kind == .protocolError
            ? RedisError(.notConnected, "Redis at \(server) is down: \(reason.detail)") : reason
        var notSent: [PendingCommand] = []
        if serverDown {
            notSent = waiting
            waiting.removeAll()
        }
        inbox.withLock { state in
            state.pending -= failed.count + notSent.count
            if serverDown { state.down = downError }
        }
        let lostError = reason.kind == .timeout || reason.kind == .connectionLost || reason.kind == .protocolError
            ? reason : RedisError(.connectionLost, reason.detail)
        for command in failed {
            if reason.kind == .timeout, command.deadline > now {
                command.completion(.failure(RedisError(.connectionLost, "connection to Redis at \(server) dropped after another command's deadline")))
            } else {
                command.completion(.failure(lostError))
            }
        }
        failed.removeAll()
        for command in notSent { command.completion(.failure(downError)) }
        if serverDown {
            phase = .waitingToReconnect(until: now + reconnectDelay)
            reconnectDelay = min(reconnectDelay * 2, configuration.maximumReconnectDelay)
        } else {
            startConnect(now: now)
        }
    }

    /// Closed by its owner: everything fails with `shutdown`, the loop lets go.
    private func end() {
        guard !ended else { return }
        ended = true
        socket = nil
        connectedFlag.store(false, ordering: .relaxed)
        let shutdown = RedisError(.shutdown, "the Redis connection is closed")
        let failed = inFlight[inFlightHead...].compactMap { $0 } + waiting
        inFlight.removeAll()
        waiting.removeAll()
        let queued = inbox.withLock { state in
            state.closed = true
            state.pending = 0
            defer { state.queued.removeAll() }
            return state.queued
        }
        for command in failed + queued { command.completion(.failure(shutdown)) }
        if ownsLoop { loop.retire() }
    }
}
