import Glibc

/// Socket-level work of a connection: waiting, flushing, the handshake and
/// the two ways of closing.
extension ServerConnection {
    enum Readiness {
        case ready(readable: Bool, writable: Bool)
        case timeout
        /// The simulator is stopping.
        case stop
    }

    /// Polls the socket and the wake pipe. A wake-up re-reads the stream
    /// limit, or reports `.stop` when the simulator is stopping.
    func waitForSocket(read: Bool, write: Bool, timeoutMilliseconds: Int32) -> Readiness {
        var events: Int16 = 0
        if read { events |= Int16(POLLIN) }
        if write { events |= Int16(POLLOUT) }
        // A tuple, not an array: no allocation per turn.
        var descriptors = (pollfd(fd: socket, events: events, revents: 0),
                           pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0))
        let result = withUnsafeMutableBytes(of: &descriptors) { raw in
            poll(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, timeoutMilliseconds)
        }
        if result < 0 { return errno == EINTR ? .timeout : .stop }
        if result == 0 { return .timeout }
        if descriptors.1.revents != 0 {
            wake.drain()
            if registry.isStopping { return .stop }
            applyStreamLimit()
        }
        let revents = descriptors.0.revents
        let failed = revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
        return .ready(readable: revents & Int16(POLLIN) != 0 || failed, writable: revents & Int16(POLLOUT) != 0)
    }

    /// Sends as much of `outbound` as the socket takes without blocking.
    /// Returns `false` when the socket failed.
    func flushOutbound() -> Bool {
        while outboundOffset < outbound.count {
            let sent = outbound.withUnsafeBytes { raw in
                send(socket, raw.baseAddress! + outboundOffset, raw.count - outboundOffset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                outboundOffset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else {
                return false
            }
        }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        }
        return true
    }

    /// Flushes `outbound` completely, waiting at most `limit`.
    func flushCompletely(within limit: Duration = .seconds(1)) {
        let deadline = ContinuousClock.now + limit
        while outboundOffset < outbound.count, flushOutbound(), outboundOffset < outbound.count {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let milliseconds = remaining.pollMilliseconds
            guard poll(&descriptor, 1, milliseconds) > 0 else { return }
        }
    }

    /// Runs the TLS server handshake within the configured time.
    func performHandshake() -> Bool {
        let deadline = ContinuousClock.now + service.handshakeTimeout
        while true {
            let step = tls.handshake()
            tls.drainOutput(into: &outbound)
            guard flushOutbound() else { return false }
            switch step {
            case .done:
                return true
            case .failed:
                flushCompletely(within: .milliseconds(200))  // the alert
                return false
            case .needsInput:
                break
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let milliseconds = remaining.pollMilliseconds
            switch waitForSocket(read: true, write: outboundOffset < outbound.count, timeoutMilliseconds: milliseconds) {
            case .stop, .timeout:
                return false
            case .ready(let readable, _):
                guard readable else { continue }
                let count = recv(socket, readBuffer.baseAddress, readBuffer.count, 0)
                if count == 0 { return false }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                    return false
                }
                tls.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            }
        }
    }

    /// Sends what is queued and a TLS close_notify, then closes the sending
    /// side and reads (and drops) whatever the client still sends until it
    /// closes too or `linger` passes, as a web server's lingering close does;
    /// the caller then closes the socket. Closing with unread client bytes in
    /// the socket would make TCP answer with a reset, which can discard
    /// answers the client has not read yet: a client would then lose streams
    /// this server did answer (seen under GOAWAY once the simulator got fast).
    func closeGracefully(linger: Duration = .seconds(1)) {
        produceOutput()
        tls.shutdown()
        tls.drainOutput(into: &outbound)
        flushCompletely()
        _ = Glibc.shutdown(socket, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + linger
        var discard = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = remaining.pollMilliseconds
            guard poll(&descriptor, 1, milliseconds) > 0 else { return }
            let count = discard.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }  // the client closed (or the socket failed)
        }
    }

    /// The broken server of `malformedFrameAfter`: sends what is queued,
    /// then reads and drops everything until the client closes (or the
    /// simulator stops).
    func holdOpenIgnoringInput() {
        flushCompletely()
        while true {
            switch waitForSocket(read: true, write: false, timeoutMilliseconds: -1) {
            case .stop:
                return
            case .timeout:
                continue
            case .ready(let readable, _):
                guard readable else { continue }
                let count = recv(socket, readBuffer.baseAddress, readBuffer.count, 0)
                if count == 0 { return }
                if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { return }
            }
        }
    }

    /// The injected fault: earlier answers are flushed, the request that
    /// triggered it is not answered, and TCP closes with no GOAWAY and no
    /// close_notify.
    func dropConnection() {
        produceOutput()
        flushCompletely()
    }
}
