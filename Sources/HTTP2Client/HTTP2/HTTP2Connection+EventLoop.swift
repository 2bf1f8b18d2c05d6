#if canImport(Glibc)
import Glibc
#endif
package import EventLoops
import NetworkSockets
internal import CNGHTTP2
internal import CNGHTTP2Shims
import Synchronization
import PushGWSync

/// The connection's part in its event loop: the connect hand-off, each
/// turn before `poll` (take requests, submit, write, check the timers),
/// serving what `poll` reported, and the end of the connection.
extension HTTP2Connection {
    /// On the connecting thread: DNS, TCP (and the proxy's tunnel) and TLS, then the socket (or the
    /// failure) handed to the loop, which starts the HTTP/2 session. When the
    /// loop has already given up on the connection, the socket is closed here.
    func connect() {
        let result: Result<TLSSocket, TransportError>
        do throws(SocketError) {
            result = .success(try TLSSocket.connect(host: host, port: port, context: tls, timeout: options.connectTimeout,
                                                   route: options.route, admitsAddress: options.admitsAddress))
        } catch {
            result = .failure(TransportError(error, host: host))
        }
        let handed = inbox.withLock { state in
            guard !state.closed else { return false }
            state.connectResult = result
            return true
        }
        if handed { wake() }
    }

    /// On the loop thread, before it polls: takes new requests, submits and
    /// writes what can go, checks the timers. nil once the connection has
    /// ended (it is torn down by then).
    package func turn(buffer: inout [UInt8]) -> EventLoopConnectionTurn? {
        guard !ended else { return nil }
        guard let socket = socket ?? connectedSocket() else { return waitingForConnect() }
        do throws(TransportError) {
            // A client made not to wait for SETTINGS (tests) writes its first
            // streams before it reads any: they go out before the server's
            // SETTINGS is seen, whenever it arrived (it is read next turn).
            if needsFirstRead, options.streamsBeforeSettings <= 1 {
                needsFirstRead = false
                try readInput(socket, &buffer)
            }
            if drainInbox() { apply(lifecycle.shutdownRequested()) }
            // Requests queued in the instant the connection began to drain:
            // no stream will open for them, so they go elsewhere now.
            if !lifecycle.acceptsRequests, !waiting.isEmpty {
                failWaiting(closingRefusal)
            }
            submitWaiting()
            try flushOutput()
            checkTimers()
            try flushOutput()
            try checkSessionAlive()
            if let fatal { throw fatal }
            if case .close = lifecycle.turnEnded(openStreams: inFlight.count) {
                end(TransportError(.shutdown, "connection closed"))
                return nil
            }
        } catch {
            end(fatal ?? error)
            return nil
        }
        let wantsToWrite = !writeNeedsReadable && (wantsWriteReadiness || outputOffset < output.count)
        let events = Int16(POLLIN) | (readNeedsWritable || wantsToWrite ? Int16(POLLOUT) : 0)
        return EventLoopConnectionTurn(descriptor: socket.descriptor, events: events, buffered: socket.hasBufferedInput)
    }

    /// Takes the connecting thread's socket, if it has one, and starts the
    /// HTTP/2 session on it. A connect failure ends the connection.
    private func connectedSocket() -> TLSSocket? {
        guard let result = inbox.withLock({ state in
            defer { state.connectResult = nil }
            return state.connectResult
        }) else { return nil }
        do throws(TransportError) {
            let socket = try result.get()
            self.socket = socket
            connectedFlag.store(true, ordering: .relaxed)
            connectedAt = ContinuousClock.now
            lastFrameReceived = connectedAt
            lifecycle.connected()
            try startSession()
            return socket
        } catch {
            end(error)
            return nil
        }
    }

    /// A turn while the connecting thread works: requests queued meanwhile
    /// wait here and time out on time, a shutdown ends the connection, and
    /// so does the connect timeout, even while the connecting thread is
    /// stuck (a DNS lookup has no timeout of ours). nil once ended.
    private func waitingForConnect() -> EventLoopConnectionTurn? {
        guard !ended else { return nil }
        if drainInbox() {
            end(TransportError(.notSent, "connection to \(host) shut down before it connected"))
            return nil
        }
        let now = ContinuousClock.now
        if now >= connectDeadline {
            end(TransportError(.connectFailed, "cannot connect to \(host):\(port) within \(options.connectTimeout)"))
            return nil
        }
        expireWaiting(now: now, "not connected to \(host) within the request's timeout")
        // Nothing to poll yet: poll ignores a negative descriptor, and the loop
        // turns at least every 50 ms.
        return EventLoopConnectionTurn(descriptor: -1, events: 0, buffered: false)
    }

    /// On the loop thread, after it polled: reads what arrived (until "would
    /// block"), or tries again after a write that would have blocked.
    package func serve(revents: Int16, buffer: inout [UInt8]) {
        guard !ended, let socket else { return }
        guard socket.hasBufferedInput || revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 || wantsWriteReadiness || readNeedsWritable
        else { return }
        do throws(TransportError) {
            try readInput(socket, &buffer)
            try checkSessionAlive()
        } catch {
            end(fatal ?? error)
        }
    }

    /// Once nghttp2 wants neither to read nor to write, the session is over:
    /// it sent its own GOAWAY after a protocol error of the peer, and from
    /// then on ignores all input and refuses every new stream. The
    /// connection must close (RFC 9113 §5.4.1); kept open, it would refuse
    /// each request at once, the pool would resend there at once, and the
    /// requests already in flight would wait for their timeouts. During a
    /// shutdown the lifecycle closes the connection once no stream is open,
    /// so the check is left to it then, unless streams are still open: a
    /// session that wants nothing will never finish them.
    private func checkSessionAlive() throws(TransportError) {
        guard let session, !lifecycle.shutdownAsked || !inFlight.isEmpty else { return }
        if nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            throw TransportError(.connectionLost, "HTTP/2 session with \(host) ended (GOAWAY sent or received, no stream left)")
        }
    }

    /// `poll` failed on the loop: the connection is lost.
    package func loopFailed(_ reason: String) {
        end(TransportError(.connectionLost, reason))
    }

    /// Ends the connection (once): every queued or open stream gets its
    /// result, and a loop of its own stops.
    func end(_ reason: TransportError) {
        guard !ended else { return }
        ended = true
        tearDown(reason: fatal ?? reason)
        if ownsLoop { loop.retire() }
    }

    /// Moves newly queued requests to the loop's waiting list. Returns whether shutdown was asked.
    private func drainInbox() -> Bool {
        // The queue's storage is swapped with an empty one kept for the
        // purpose: no copy, and no new buffer per wake.
        // The streams taken back since the last turn go to the senders (a
        // local list: see `recycle`).
        var spares: [PendingStream] = []
        swap(&spares, &recycled)
        let shutdownRequested = inbox.withLock { state in
            state.wakePending = false
            waiting.take(from: &state.queued)
            if state.spareStreams.isEmpty {
                swap(&state.spareStreams, &spares)
            } else {
                state.spareStreams.append(contentsOf: spares.prefix(max(0, Self.spareStreamLimit - state.spareStreams.count)))
            }
            return state.shutdownRequested
        }
        // Handed over, or over the limit: let go here, outside the lock.
        spares.removeAll(keepingCapacity: true)
        swap(&spares, &recycled)
        if waiting.admitTaken() { givenAny = true }
        return shutdownRequested
    }

    private func tearDown(reason: TransportError) {
        accepting.store(false, ordering: .relaxed)
        let (queued, unusedSocket) = inbox.withLock { state in
            state.closed = true
            state.closeReason = reason
            let queued = state.queued
            state.queued.removeAll()
            defer { state.connectResult = nil }
            return (queued, state.connectResult)
        }
        // A socket connected after the loop gave up on it: closed here.
        _ = consume unusedSocket
        // Never connected: the queue ends with the connect error itself (the pool
        // backs off and retries a connect failure, and stops on a certificate or ALPN refusal).
        let notSent = didConnect ? TransportError(.notSent, "connection to \(host) ended before sending: \(reason.detail)") : reason
        waiting.append(contentsOf: queued)
        failWaiting(notSent)
        if case let .close(lost) = lifecycle.failed(reason) {
            // Over a snapshot (see `checkTimers`).
            let snapshot = inFlight
            snapshot.forEach { stream in
                // A request nghttp2 had not yet opened a stream for (its
                // HEADERS never left the session) certainly was not
                // processed: `notSent`, which the pool sends again at once.
                if lost.kind == .connectionLost, let session, nghttp2_session_find_stream(session, stream.streamID) == nil {
                    complete(stream, .failure(TransportError(.notSent, "connection to \(host) lost before this request was sent: \(lost.detail)")))
                } else {
                    complete(stream, .failure(lifecycle.failure(ofStream: stream.streamID, lost: lost)))
                }
            }
        }
        var streams = InFlightStreams()
        swap(&streams, &inFlight)
        streams.removeAll()
        if didConnect, givenAny, !answeredAny, ContinuousClock.now - connectedAt < Self.healthyLifetime {
            endedWithoutAnswer.store(true, ordering: .relaxed)
        }
        if let session { nghttp2_session_del(session) }
        session = nil
        // Only once the session, which allocates from it, is gone.
        pgw_h2_pool_free(sessionMemory)
        sessionMemory = nil
        socket = nil
        onClose(self)
    }
}

extension HTTP2Connection: EventLoopConnection {}
