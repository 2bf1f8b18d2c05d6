import Glibc

/// HTTP/1.1 on the connection's TLS session, for a service that serves it
/// (`ApplicationProtocol.http11`): requests are read strictly
/// (`HTTP1RequestReader`), one at a time and in order (pipelined ones
/// wait their turn), answered by the same handler as HTTP/2 requests, and
/// the connection stays open until the client closes it or asks to
/// (`Connection: close`).
///
/// Of the connection faults, `silent` (read, never answered) and
/// `dropConnectionAfterStreams` (closed at once, no answer) apply, with
/// `responseDelay`; the others are HTTP/2 frames and do not. The idle
/// timeout closes a connection silent for that long (no GOAWAY exists).
extension ServerConnection {
    /// Serves until the connection ends, then closes it gracefully (TLS
    /// close_notify, lingering), except when dropped by the fault or the
    /// simulator stopping.
    func serveHTTP1() {
        var graceful = true
        defer { if graceful { closeGracefully() } }
        var reader = HTTP1RequestReader()
        lastReceived = ContinuousClock.now
        // A client that writes its request right after its Finished message
        // may have it read with the end of the handshake: it is in the TLS
        // session already, and the socket may never be readable again.
        guard decryptBuffered(into: &reader) else { return }
        while true {
            while true {
                switch reader.next() {
                case .needsMore:
                    break
                case .refused(let status, let message):
                    let body = Array(JSONText.object([("code", String(status)), ("error", JSONText.quoted(message))]).utf8)
                    queueHTTP1(HTTP2Answer(status: status, headers: [("content-type", "application/json")], body: body), close: true)
                    return
                case .request(let request, let closeAfter):
                    let faults = service.faults
                    if let limit = faults.dropConnectionAfterStreams, completedRequests >= limit {
                        service.recordDropped()
                        service.recordUnanswered(1)
                        graceful = false
                        flushCompletely()
                        return
                    }
                    completedRequests += 1
                    if faults.silent {
                        service.recordUnanswered(1)
                        continue
                    }
                    if faults.responseDelay > .zero, !waitQuietly(faults.responseDelay) {
                        graceful = false
                        return
                    }
                    let answer = handler.answer(request, streamID: Int32(truncatingIfNeeded: completedRequests * 2 - 1))
                    queueHTTP1(answer, close: closeAfter)
                    if closeAfter { return }
                    continue
                }
                break
            }
            guard flushOutbound() else { return }
            let idle = service.idleTimeout.map { ContinuousClock.now.duration(to: lastReceived + $0) }
            if let idle, idle <= .zero { return }
            switch waitForSocket(read: true, write: outboundOffset < outbound.count,
                                 timeoutMilliseconds: idle?.pollMilliseconds ?? -1) {
            case .stop:
                graceful = false
                return
            case .timeout:
                continue
            case .ready(let readable, _):
                guard readable else { continue }
                let count = recv(socket, readBuffer.baseAddress, readBuffer.count, 0)
                if count == 0 { return }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                    return
                }
                lastReceived = ContinuousClock.now
                tls.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                guard decryptBuffered(into: &reader) else { return }
            }
        }
    }

    /// Hands every byte the TLS session can decrypt now to `reader`;
    /// false when the peer closed or TLS failed.
    private func decryptBuffered(into reader: inout HTTP1RequestReader) -> Bool {
        while true {
            switch tls.read(into: plainBuffer) {
            case .bytes(let plain):
                reader.append(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<plain]))
            case .needsInput:
                return true
            case .closed, .failed:
                return false
            }
        }
    }

    /// Encrypts `answer` as an HTTP/1.1 response into `outbound`.
    private func queueHTTP1(_ answer: HTTP2Answer, close: Bool) {
        var head = "HTTP/1.1 \(answer.status) \(HTTPStatusPhrase.phrase(for: answer.status))\r\n"
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        head += "content-length: \(answer.body.count)\r\n"
        if close { head += "connection: close\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + answer.body
        if bytes.withUnsafeBytes({ tls.write($0) }) { tls.drainOutput(into: &outbound) }
    }

    /// Waits `delay` (the `responseDelay` fault) unless the simulator
    /// stops first; false when it does.
    private func waitQuietly(_ delay: Duration) -> Bool {
        let due = ContinuousClock.now + delay
        while true {
            let remaining = ContinuousClock.now.duration(to: due)
            if remaining <= .zero { return true }
            guard flushOutbound() else { return false }
            switch waitForSocket(read: false, write: outboundOffset < outbound.count, timeoutMilliseconds: remaining.pollMilliseconds) {
            case .stop: return false
            case .timeout, .ready: continue
            }
        }
    }
}
