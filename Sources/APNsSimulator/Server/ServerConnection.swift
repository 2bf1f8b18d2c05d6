import CNGHTTP2
import Glibc

/// One accepted TCP connection, served on its own thread from TLS
/// handshake to close: TLS through memory BIOs, an nghttp2 server session
/// (or, for a service that serves HTTP/1.1, `ServerConnection+HTTP1.swift`)
/// and injected faults. What each complete request is answered with is up
/// to the service's per-connection `HTTP2RequestHandler` (APNs, FCM or web push).
///
/// Thread-confined: created, run and released by the connection's thread.
/// nghttp2 calls back into it (see `HTTP2Callbacks.swift`) only from inside
/// `nghttp2_session_mem_recv`/`mem_send`, which this class calls itself.
final class ServerConnection {
    enum Phase { case receiving, waiting, silent, answered, ignored }

    struct Stream {
        var request = ReceivedRequest()
        var phase = Phase.receiving
        var responseBody: [UInt8] = []
        var responseOffset = 0

        /// Copies the next part of the response body into `buffer`.
        mutating func copyResponseBody(into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, finished: Bool) {
            let count = min(buffer.count, responseBody.count - responseOffset)
            if count > 0 {
                responseBody.withUnsafeBytes { body in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: body[responseOffset..<responseOffset + count]))
                }
            }
            responseOffset += count
            return (count, responseOffset == responseBody.count)
        }
    }

    /// The header block being received: its stream and its fields so far.
    struct IncomingHeaders {
        let streamID: Int32
        var fields = HeaderFields.reserved()

        /// Appends a field of `streamID`'s block; `false` when the block
        /// already holds `headerFieldLimit` fields, so the request cannot be
        /// validated whole and must be refused.
        mutating func append(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                             neverIndexed: Bool) -> Bool {
            guard streamID == self.streamID else { return true }
            guard fields.count < ServerConnection.headerFieldLimit else { return false }
            fields.append(name: name, value: value, neverIndexed: neverIndexed)
            return true
        }
    }

    struct PendingAnswer {
        let due: ContinuousClock.Instant
        let streamID: Int32
    }

    let service: any HTTP2Service
    let handler: any HTTP2RequestHandler
    let registry: ConnectionRegistry
    let number: Int
    let socket: Int32
    let wake: WakeSignal
    let tls: TLSSession
    var session: HTTP2ServerSession?
    var streams: [Int32: Stream] = [:]
    /// The request header block nghttp2 is delivering. Header blocks are
    /// never interleaved (RFC 9113 §4.3), so fields collect here, one append
    /// each without a lookup in `streams`, and join their stream when the
    /// block ends (`endHeaders`).
    var incomingHeaders: IncomingHeaders?
    var pending: [PendingAnswer] = []
    var outbound: [UInt8] = []
    var outboundOffset = 0
    /// Frames nghttp2 serialized, waiting to be encrypted together.
    var plainOutbound: [UInt8] = []
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 16)
    let plainBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 16)
    var completedRequests = 0
    var highestCompletedStreamID: Int32 = 0
    var goAwayLastStreamID: Int32?
    var advertisedStreamLimit: Int?
    var dropRequested = false
    /// When the `malformedFrameAfter` fault strikes, if it is set.
    var malformedFrameDue: ContinuousClock.Instant?
    /// DATA bytes received since the window was last widened, under the
    /// `widensWindowOnlyWhenUsedUp` fault (nil without it).
    var windowUsed: Int?
    var peerClosed = false
    /// When the connection last received a byte (`idleTimeout` counts from it).
    var lastReceived = ContinuousClock.now

    /// Bytes waiting for the socket beyond which the connection stops reading.
    static let outboundBacklogLimit = 4 * 1024 * 1024
    /// The most plaintext encrypted in one go: TLS's largest record.
    static let recordSize = 16 * 1024
    /// At most this many header fields per request; a request with more is
    /// reset (RST_STREAM), never validated on a truncated list.
    static let headerFieldLimit = 256

    init(service: any HTTP2Service, context: TLSServerContext, registry: ConnectionRegistry, number: Int, socket: Int32,
         wake: WakeSignal) throws(APNsSimulatorError) {
        self.service = service
        handler = service.makeHandler(connection: number)
        self.registry = registry
        self.number = number
        self.socket = socket
        self.wake = wake
        tls = try TLSSession(context: context)
    }

    deinit {
        readBuffer.deallocate()
        plainBuffer.deallocate()
    }

    /// Serves the connection until it ends. The caller closes the socket.
    func run() {
        guard performHandshake() else {
            service.recordRefused()
            return
        }
        if service.applicationProtocol == .http11 {
            // A client without ALPN speaks HTTP/1.1, as to any web server.
            serveHTTP1()
            return
        }
        guard tls.negotiatedProtocol == "h2" else {
            // No ALPN at all (a client that offers only other protocols
            // already failed in the handshake with no_application_protocol).
            service.recordRefused()
            closeGracefully()
            return
        }
        do {
            let byHand = service.faults.widensWindowOnlyWhenUsedUp
            session = try HTTP2ServerSession(userData: Unmanaged.passUnretained(self).toOpaque(), windowByHand: byHand)
            if byHand { windowUsed = 0 }
        } catch {
            return
        }
        applyStreamLimit()
        if applyConnectFaults() {
            holdOpenIgnoringInput()
            return
        }
        serve()
    }

    /// A DATA frame of `length` bytes arrived: under the
    /// `widensWindowOnlyWhenUsedUp` fault the window is widened once the
    /// client has used all of it (the initial 65,535 bytes), by that much.
    func dataReceived(length: Int) {
        guard let used = windowUsed, let session else { return }
        windowUsed = used + length
        if used + length >= Self.initialWindow {
            session.consume(connectionBytes: used + length)
            windowUsed = 0
            service.recordWindowWidenedWhenUsedUp()
        }
    }

    /// HTTP/2's initial connection window (RFC 9113 §6.9.2), never changed here.
    static let initialWindow = 65_535

    /// Sends GOAWAY with `lastStreamID` and counts it: streams above it are
    /// neither processed nor answered, and the connection closes once the
    /// ones below are answered (`isFinished`).
    func goAway(lastStreamID: Int32, debugData: [UInt8]) {
        goAwayLastStreamID = lastStreamID
        session?.submitGoAway(lastStreamID: lastStreamID, debugData: debugData)
        service.recordGoAway()
    }

    /// The faults that act as soon as the connection is up. True when the
    /// connection must then be held open without serving.
    private func applyConnectFaults() -> Bool {
        let faults = service.faults
        if faults.goAwayAfterStreams == 0 { goAway(lastStreamID: 0, debugData: service.goAwayDebugData) }
        if let delay = faults.malformedFrameAfter {
            guard delay > .zero else {
                sendMalformedFrame()
                return true
            }
            malformedFrameDue = ContinuousClock.now + delay
        }
        return false
    }

    /// The `malformedFrameAfter` fault: what nghttp2 has queued, then a PING
    /// with a 7-byte payload (length 7, type 6, no flags, stream 0).
    func sendMalformedFrame() {
        produceOutput()
        let ping: [UInt8] = [0, 0, 7, 6, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 7)
        if ping.withUnsafeBytes({ tls.write($0) }) { tls.drainOutput(into: &outbound) }
    }

    // MARK: Event loop

    private func serve() {
        guard let session else { return }
        lastReceived = ContinuousClock.now
        while true {
            if dropRequested {
                dropConnection()
                return
            }
            if let due = idleDeadline, due <= ContinuousClock.now {
                closeIdle()
                return
            }
            if let due = malformedFrameDue, due <= ContinuousClock.now {
                sendMalformedFrame()
                holdOpenIgnoringInput()
                return
            }
            produceOutput()
            guard flushOutbound() else { return }
            if isFinished(session) {
                closeGracefully()
                return
            }
            let backlog = outbound.count - outboundOffset
            let readiness = waitForSocket(
                read: !peerClosed && backlog < Self.outboundBacklogLimit,
                write: backlog > 0,
                timeoutMilliseconds: pollTimeout()
            )
            switch readiness {
            case .stop:
                return
            case .ready(let readable, _):
                if readable, !receive() {
                    produceOutput()
                    _ = flushOutbound()
                    return
                }
            case .timeout:
                break
            }
            answerDue()
        }
    }

    /// Whether the connection has nothing left to do.
    private func isFinished(_ session: HTTP2ServerSession) -> Bool {
        let flushed = outboundOffset == outbound.count
        if peerClosed { return true }
        if !session.isAlive { return flushed }
        if let last = goAwayLastStreamID, flushed, !session.wantsWrite {
            return !streams.contains { id, stream in
                id <= last && (stream.phase == .receiving || stream.phase == .waiting || stream.phase == .silent)
            }
        }
        return false
    }

    /// When the idle timeout strikes, if the service has one (not while a
    /// delayed answer of the simulator's own is pending).
    private var idleDeadline: ContinuousClock.Instant? {
        guard pending.isEmpty else { return nil }
        return service.idleTimeout.map { lastReceived + $0 }
    }

    /// The idle timeout struck: GOAWAY (no error, the last stream answered,
    /// the service's debug data), then a graceful close; streams left
    /// unfinished are never answered.
    private func closeIdle() {
        session?.submitGoAway(lastStreamID: highestCompletedStreamID, debugData: service.idleGoAwayDebugData)
        let unfinished = streams.values.filter { $0.phase == .receiving }.count
        if unfinished > 0 { service.recordUnanswered(unfinished) }
        closeGracefully()
    }

    /// Milliseconds until the next delayed answer (or the malformed frame,
    /// or the idle timeout) is due, or -1.
    private func pollTimeout() -> Int32 {
        guard let due = [pending.first?.due, malformedFrameDue, idleDeadline].compactMap({ $0 }).min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: due)
        return remaining.pollMilliseconds
    }

    /// Reads what the socket has, decrypts it and feeds it to nghttp2.
    /// Returns `false` when the connection must end.
    private func receive() -> Bool {
        guard let session else { return false }
        let count = recv(socket, readBuffer.baseAddress, readBuffer.count, 0)
        if count == 0 { return false }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
        lastReceived = ContinuousClock.now
        tls.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
        while !dropRequested {
            switch tls.read(into: plainBuffer) {
            case .bytes(let plain):
                let consumed = nghttp2_session_mem_recv(session.pointer, plainBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), plain)
                if consumed < 0 { return false }  // nghttp2 has queued GOAWAY; the caller flushes it
                // Skips the read that could only say "needs input" (the
                // usual turn: one record in, all of it read).
                if !tls.hasBufferedInput { return true }
            case .needsInput:
                return true
            case .closed:
                peerClosed = true
                return true
            case .failed:
                return false
            }
        }
        return true
    }

    /// Serializes queued HTTP/2 frames, encrypts them, and collects the
    /// ciphertext in `outbound`. The frames of one turn (every answer that
    /// became due, with its HEADERS and DATA) are gathered first and
    /// encrypted together, up to `recordSize` at a time: one TLS record
    /// instead of one per frame.
    func produceOutput() {
        tls.drainOutput(into: &outbound)
        guard let session else { return }
        while outbound.count - outboundOffset < Self.outboundBacklogLimit {
            plainOutbound.removeAll(keepingCapacity: true)
            while plainOutbound.count < Self.recordSize {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session.pointer, &data)
                guard length > 0, let data else { break }
                plainOutbound.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
            guard !plainOutbound.isEmpty, plainOutbound.withUnsafeBytes({ tls.write($0) }) else { break }
            tls.drainOutput(into: &outbound)
        }
    }

    // MARK: Stream limit

    /// Advertises the stream limit in force, as the handler decides from the
    /// service's current limit (APNs: 1 before the first valid JWT when
    /// configured like Apple).
    func applyStreamLimit() {
        guard let session else { return }
        let limit = handler.streamLimit(serviceLimit: service.maxConcurrentStreams)
        if limit != advertisedStreamLimit {
            session.submitMaxConcurrentStreams(limit)
            advertisedStreamLimit = limit
        }
    }
}
