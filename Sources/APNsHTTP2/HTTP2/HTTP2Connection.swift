#if canImport(Glibc)
import Glibc
#endif
internal import CNGHTTP2
internal import CThreadShims
import Foundation
import Synchronization
import PushGWSync

/// One HTTP/2 client connection over TLS, driven by an event-loop thread
/// (an `HTTP2EventLoop` of its pool, shared with another of the pool's
/// connections, or its own): requests are queued from any task, submitted as streams up
/// to the peer's SETTINGS_MAX_CONCURRENT_STREAMS (re-read as it changes),
/// and each `send` ends with exactly one result. The DNS lookup, TCP connect
/// and TLS handshake run on a short-lived thread of their own, so a slow
/// handshake never holds up the loop's other connections; meanwhile the loop
/// already holds the connection, so requests queued on it time out on time
/// and the connect timeout holds even when the lookup hangs.
///
/// - GOAWAY: streams above the last stream id end with `refused`, requests
///   not yet submitted with `notSent` (both safe to resend elsewhere); the
///   rest finish normally, then the connection closes.
/// - A dead connection (read error, unanswered PING) ends in-flight streams
///   with `connectionLost`.
/// - Back-pressure: more than `maximumQueued` waiting requests → `overloaded`.
///
/// `@unchecked Sendable`: the state shared with other threads is the `inbox`
/// (a `Mutex`) and the atomics; everything else (socket, nghttp2 session,
/// streams) is touched only by the loop thread, including from nghttp2's
/// callbacks, which run inside that thread's calls into the session. The
/// connecting thread touches none of it: it hands its socket (or its
/// failure) to the loop through the inbox.
public final class HTTP2Connection: @unchecked Sendable {
    public let host: String
    public let port: Int
    let options: HTTP2ConnectionOptions
    private let tls: TLSClientContext

    private struct Inbox {
        var queued: [PendingStream] = []
        var wakePending = false
        var closed = false
        var closeReason = TransportError(.shutdown, "connection closed")
        var shutdownRequested = false
        /// What the connecting thread achieved, until the loop takes it.
        var connectResult: Result<TLSSocket, TransportError>?
    }

    private let inbox = Locked(Inbox())
    /// The thread that drives this connection once it is connected.
    private let loop: HTTP2EventLoop
    /// The loop is this connection's alone: retired when the connection ends.
    private let ownsLoop: Bool
    private let load = Atomic<Int>(0)
    private let accepting = Atomic<Bool>(true)
    private let connectedFlag = Atomic<Bool>(false)
    private let endedWithoutAnswer = Atomic<Bool>(false)
    /// DNS, TCP and TLS must be done by then.
    private let connectDeadline: ContinuousClock.Instant
    private let onClose: @Sendable (HTTP2Connection) -> Void

    // Loop-thread state.
    private var socket: TLSSocket?
    private var session: OpaquePointer?
    private var waiting: [PendingStream] = []
    /// The inbox's queue as last taken, emptied: swapped back in on the next drain.
    private var drained: [PendingStream] = []
    private var waitingHead = 0
    private var inFlight: [Int32: PendingStream] = [:]
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// The last write would have blocked: poll for writability.
    private var wantsWriteReadiness = false
    /// TLS must write before it can read on (a TLS 1.3 key update's answer
    /// into a full socket): poll for writability too, then read again.
    private var readNeedsWritable = false
    /// TLS must read before it can write on: the socket is not full, so
    /// polling for writability would only spin; the write waits for input.
    private var writeNeedsReadable = false
    /// Records read ahead with the end of the handshake are inside OpenSSL,
    /// out of `poll`'s sight: the first turn reads before any poll.
    private var needsFirstRead = true
    /// Torn down: the loop lets go of it.
    private var ended = false
    private var lifecycle = ConnectionLifecycle()
    private var fatal: TransportError?
    private var lastFrameReceived = ContinuousClock.now
    private var connectedAt = ContinuousClock.now
    /// A request was queued on this connection (taken from the inbox).
    private var givenAny = false
    /// A response (any status) arrived on this connection.
    private var answeredAny = false
    /// A connection that ends sooner than this after its handshake, without
    /// a single answer, counts as failed: its pool backs off.
    private static let healthyLifetime: Duration = .seconds(10)
    private var pingSentAt: ContinuousClock.Instant?
    /// Deadlines are scanned at most this often, not on every loop turn.
    private var nextTimerCheck = ContinuousClock.now
    private static let timerResolution: Duration = .milliseconds(20)
    private var fixedHeaders: UnsafeMutableBufferPointer<nghttp2_nv>?
    /// `options.keptHeaderBytes`, read once.
    private let keptHeaderBytes: [[UInt8]]?
    private var fixedHeaderStorage: [UnsafeMutableRawBufferPointer] = []

    /// Creates the connection, on an event loop of its own, and connects at
    /// once. `onClose` runs on the loop thread when the connection stops
    /// taking requests.
    public convenience init(host: String, port: Int, tls: TLSConfiguration, options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(),
                onClose: @escaping @Sendable (HTTP2Connection) -> Void = { _ in }) throws(TransportError) {
        try self.init(host: host, port: port, context: TLSClientContext(tls), options: options, loop: nil, onClose: onClose)
    }

    /// - Parameter loop: the loop to run on once connected (a pool's); nil
    ///   starts one for this connection alone.
    init(host: String, port: Int, context: TLSClientContext, options: HTTP2ConnectionOptions, loop: HTTP2EventLoop?,
         onClose: @escaping @Sendable (HTTP2Connection) -> Void) throws(TransportError) {
        self.host = host
        self.port = port
        self.options = options
        keptHeaderBytes = options.keptHeaderBytes
        tls = context
        self.onClose = onClose
        connectDeadline = ContinuousClock.now + options.connectTimeout
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            self.loop = try HTTP2EventLoop(name: "pushgw-h2-\(host)")
            ownsLoop = true
        }
        guard self.loop.adopt(self) else { throw TransportError(.shutdown, "the event loop for \(host) has stopped") }
        let thread = Thread { [self] in
            _ = pgw_name_current_thread("pushgw-connect")
            connect()
        }
        thread.start()
    }

    deinit {
        if let fixedHeaders { fixedHeaders.deallocate() }
        for storage in fixedHeaderStorage { storage.deallocate() }
    }

    /// Requests queued or in flight: the pool sends to the least loaded connection.
    public var currentLoad: Int { load.load(ordering: .relaxed) }

    /// True once the TLS handshake with the server completed.
    public var didConnect: Bool { connectedFlag.load(ordering: .relaxed) }

    /// Why the connection ended (meaningful once it has: a connect failure,
    /// a certificate refused, GOAWAY…).
    public var endReason: TransportError { inbox.withLock { $0.closeReason } }

    /// Once it has ended: it connected and was given requests, then ended
    /// within seconds without a single response (a server that accepts and
    /// at once sends GOAWAY or closes). The pool backs off from such a
    /// server; a connection that was never used does not count.
    public var endedSoonWithoutAnswer: Bool { endedWithoutAnswer.load(ordering: .relaxed) }

    /// False once the connection is draining (GOAWAY), dead or shut down.
    public var isAcceptingRequests: Bool { accepting.load(ordering: .relaxed) }

    /// True on the thread of the loop that drives this connection.
    var isOnCurrentLoop: Bool { loop.isCurrent }

    /// Sends one request and waits for its response or failure.
    public func send(_ request: HTTP2Request) async throws(TransportError) -> HTTP2Response {
        try await send([request])[0].get()
    }

    /// Sends requests together and waits for all of them: one hand-off to the
    /// loop thread and one wake-up of the caller for the whole batch. Each
    /// request still gets its own stream, timeout and result. A batch that
    /// does not fit the queue is refused whole with `overloaded`.
    public func send(_ requests: [HTTP2Request]) async -> [Result<HTTP2Response, TransportError>] {
        await send(requests, startedAt: ContinuousClock.now)
    }

    /// As `send(_:)`, with each request's timeout counted from `startedAt`
    /// (the pool passes the time of the first attempt).
    func send(_ requests: [HTTP2Request], startedAt: ContinuousClock.Instant) async -> [Result<HTTP2Response, TransportError>] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Result<HTTP2Response, TransportError>], Never>) in
            send(requests, startedAt: startedAt) { continuation.resume(returning: $0) }
        }
    }

    /// As `send(_:startedAt:)`, calling `completion` with the results instead
    /// of suspending a task: on the loop thread when the last response is in,
    /// or at once on the caller's thread when the batch is refused. The
    /// dispatcher's notify path uses it to answer without a task hop.
    func send(_ requests: [HTTP2Request], startedAt: ContinuousClock.Instant,
              completion: @escaping @Sendable ([Result<HTTP2Response, TransportError>]) -> Void) {
        let batch = BatchCompletion(count: requests.count, deliver: completion)
        guard !requests.isEmpty else { return }
        var streams = requests.enumerated().map { PendingStream(request: $1, batch: batch, index: $0, startedAt: startedAt) }
        // A request whose time is already up is not sent at all: it ends now,
        // on this thread, before the others are handed to the loop.
        let now = ContinuousClock.now
        if streams.contains(where: { $0.deadline <= now }) {
            for stream in streams where stream.deadline <= now {
                stream.finish(.failure(TransportError(.timeout, "no time left to send to \(host)")))
            }
            streams.removeAll { $0.finished }
            if streams.isEmpty { return }
        }
        let outcome: (refusal: TransportError?, wake: Bool) = inbox.withLock { state in
            if !state.closed, !accepting.load(ordering: .relaxed) {
                // Draining (GOAWAY or shutdown): it would never open a stream for them.
                return (closingRefusal, false)
            }
            if state.closed {
                // As tearDown ends the queue: a connection that never connected
                // refuses with its connect error (the pool backs off, or stops on
                // a certificate or ALPN refusal), not with a plain "not sent".
                let refusal = didConnect ? TransportError(.notSent, "connection closed: \(state.closeReason.detail)") : state.closeReason
                return (refusal, false)
            }
            if load.load(ordering: .relaxed) + streams.count > options.maximumQueued + options.maximumConcurrentStreams {
                return (TransportError(.overloaded, "more than \(options.maximumQueued) requests waiting on \(host)"), false)
            }
            state.queued.append(contentsOf: streams)
            load.add(streams.count, ordering: .relaxed)
            let wake = !state.wakePending
            state.wakePending = true
            return (nil, wake)
        }
        if let refusal = outcome.refusal {
            for stream in streams { stream.finish(.failure(refusal)) }
        } else if outcome.wake, !loop.isCurrent {
            // On the loop's own thread the loop turns right after: no wake-up.
            wake()
        }
    }

    /// What a request gets from a connection that drains (after GOAWAY or a
    /// shutdown): not sent, so its pool sends it elsewhere.
    private var closingRefusal: TransportError { TransportError(.notSent, "connection to \(host) is closing") }

    /// Stops taking requests; in-flight streams finish (gracefully) or fail.
    /// Also how the connection retires itself on the loop thread when the
    /// server asks for a new connection in an answer.
    public func shutdown(graceful: Bool = true) {
        inbox.withLock { state in
            state.shutdownRequested = true
            if !graceful { state.closeReason = TransportError(.shutdown, "connection shut down") }
        }
        accepting.store(false, ordering: .relaxed)
        // On the loop's own thread the loop turns right after: no wake-up.
        if !loop.isCurrent { wake() }
    }

    private func wake() {
        loop.wake()
    }

    // MARK: event loop

    /// On the connecting thread: DNS, TCP and TLS, then the socket (or the
    /// failure) handed to the loop, which starts the HTTP/2 session. When the
    /// loop has already given up on the connection, the socket is closed here.
    private func connect() {
        let result: Result<TLSSocket, TransportError>
        do throws(TransportError) {
            result = .success(try TLSSocket.connect(host: host, port: port, context: tls, timeout: options.connectTimeout))
        } catch {
            result = .failure(error)
        }
        let handed = inbox.withLock { state in
            guard !state.closed else { return false }
            state.connectResult = result
            return true
        }
        if handed { wake() }
    }

    private func startSession() throws(TransportError) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeaderCallback)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunkCallback)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamCloseCallback)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceivedCallback)
        var session: OpaquePointer?
        let status = nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        guard status == 0, let session else { throw TransportError(.protocolError, nghttp2Message("nghttp2_session_client_new", status)) }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        buildFixedHeaders()
    }

    /// `:scheme` and `:authority`, shared by every stream of the connection.
    private func buildFixedHeaders() {
        let authority = port == 443 ? host : "\(host):\(port)"
        let pairs = [(":scheme", "https"), (":authority", authority)]
        let block = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: pairs.count)
        for (index, (name, value)) in pairs.enumerated() {
            let bytes = Array(name.utf8) + Array(value.utf8)
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            storage.copyBytes(from: bytes)
            fixedHeaderStorage.append(storage)
            let base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
            block[index] = nghttp2_nv(name: base, value: base + name.utf8.count, namelen: name.utf8.count,
                                      valuelen: value.utf8.count,
                                      flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue))
        }
        fixedHeaders = block
    }

    /// What the loop polls for on behalf of a connection.
    struct PollTurn {
        let descriptor: Int32
        let events: Int16
        /// Input is waiting inside OpenSSL: do not sleep in `poll`.
        let buffered: Bool
    }

    /// On the loop thread, before it polls: takes new requests, submits and
    /// writes what can go, checks the timers. nil once the connection has
    /// ended (it is torn down by then).
    func turn(buffer: inout [UInt8]) -> PollTurn? {
        guard !ended else { return nil }
        guard let socket = socket ?? connectedSocket() else { return waitingForConnect() }
        do throws(TransportError) {
            if needsFirstRead {
                needsFirstRead = false
                try readInput(socket, &buffer)
            }
            if drainInbox() { apply(lifecycle.shutdownRequested()) }
            // Requests queued in the instant the connection began to drain:
            // no stream will open for them, so they go elsewhere now.
            if !lifecycle.acceptsRequests, waitingHead < waiting.count {
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
        return PollTurn(descriptor: socket.descriptor, events: events, buffered: socket.hasBufferedInput)
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
    private func waitingForConnect() -> PollTurn? {
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
        return PollTurn(descriptor: -1, events: 0, buffered: false)
    }

    /// On the loop thread, after it polled: reads what arrived (until "would
    /// block"), or tries again after a write that would have blocked.
    func serve(revents: Int16, buffer: inout [UInt8]) {
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
        let shutdownRequested = inbox.withLock { state in
            state.wakePending = false
            swap(&state.queued, &drained)
            return state.shutdownRequested
        }
        if !drained.isEmpty { givenAny = true }
        waiting.append(contentsOf: drained)
        drained.removeAll(keepingCapacity: true)
        return shutdownRequested
    }

    private func submitWaiting() {
        defer { releaseSubmitted() }
        guard let session, let fixedHeaders, lifecycle.opensStreams else { return }
        let limit = streamLimit(session)
        // Refill in groups rather than one stream per freed slot: fewer, larger
        // writes for the server (only while streams are still in flight).
        let group = max(1, min(16, limit / 8))
        if !inFlight.isEmpty, limit - inFlight.count < group { return }
        while waitingHead < waiting.count, inFlight.count < limit {
            let stream = waiting[waitingHead]
            waitingHead += 1
            let block = stream.buildHeaderBlock(fixed: UnsafeBufferPointer(fixedHeaders), unindexed: options.unindexedHeaderBytes)
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: Unmanaged.passUnretained(stream).toOpaque()),
                                                 read_callback: readBodyCallback)
            let streamPointer = Unmanaged.passUnretained(stream).toOpaque()
            let streamID = stream.request.body.isEmpty
                ? nghttp2_submit_request(session, nil, block.baseAddress, block.count, nil, streamPointer)
                : nghttp2_submit_request(session, nil, block.baseAddress, block.count, &provider, streamPointer)
            if streamID < 0 {
                complete(stream, .failure(TransportError(.notSent, nghttp2Message("nghttp2_submit_request", streamID))))
                continue
            }
            stream.streamID = streamID
            inFlight[streamID] = stream
        }
    }

    /// Streams this connection may have open: the peer's
    /// SETTINGS_MAX_CONCURRENT_STREAMS as it stands now, within our own bound.
    private func streamLimit(_ session: OpaquePointer) -> Int {
        min(Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)), options.maximumConcurrentStreams)
    }

    /// Lets go of the streams already taken from `waiting` (they hold their
    /// request bodies): at once when all were taken, which under load is most
    /// turns, else once they are the larger part of the list.
    private func releaseSubmitted() {
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 64, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    private func failWaiting(_ error: TransportError) {
        while waitingHead < waiting.count {
            complete(waiting[waitingHead], .failure(error))
            waitingHead += 1
        }
        waiting.removeAll()
        waitingHead = 0
    }

    /// Collects every frame nghttp2 has ready (up to 64 KiB) and writes them
    /// in one TLS write: one record and one syscall for many frames.
    private func flushOutput() throws(TransportError) {
        guard let session, let socket else { return }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                while output.count < 64 * 1024 {
                    var data: UnsafePointer<UInt8>?
                    let count = nghttp2_session_mem_send(session, &data)
                    if count < 0 { throw TransportError(.protocolError, nghttp2Message("nghttp2_session_mem_send", Int32(count))) }
                    if count == 0 { break }
                    output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                }
                if output.isEmpty {
                    wantsWriteReadiness = false
                    return
                }
            }
            let result = output.withUnsafeBytes { bytes in
                socket.write(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case let .bytes(count):
                outputOffset += count
                writeNeedsReadable = false
            case let .wouldBlock(wantsWrite):
                wantsWriteReadiness = wantsWrite
                writeNeedsReadable = !wantsWrite
                return
            case .closed:
                throw TransportError(.connectionLost, "server closed the connection")
            case let .failed(message):
                throw TransportError(.connectionLost, message)
            }
        }
    }

    /// Reads until "would block", feeding nghttp2 a slice at a time. The
    /// streams that the answers free are refilled as they free, and once
    /// `refillsPerWrite` of them have been refilled those requests are
    /// written before the rest of the input is read: the server gets new
    /// work while this thread still reads a large batch of answers, instead
    /// of waiting for all of it (BENCHMARKS.md, session 8: against nghttpd's
    /// 100 streams, one connection, 78% → 91% of h2load's rate).
    ///
    /// A write failure waits until the input is read: answers already in
    /// the socket must be processed before anything else can fail the
    /// connection (a write to a peer that answered, sent GOAWAY and closed
    /// would otherwise lose the streams it answered).
    private func readInput(_ socket: TLSSocket, _ buffer: inout [UInt8]) throws(TransportError) {
        guard let session else { return }
        var writeFailure: TransportError?
        var refilled = 0
        readNeedsWritable = false
        while true {
            let result = buffer.withUnsafeMutableBytes { socket.read(into: $0) }
            switch result {
            case let .bytes(count):
                lastFrameReceived = ContinuousClock.now
                writeNeedsReadable = false
                var start = 0
                while start < count {
                    let end = min(count, start + Self.inputSlice)
                    let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress! + start, end - start) }
                    if consumed < 0 {
                        throw TransportError(.protocolError, nghttp2Message("nghttp2_session_mem_recv", Int32(consumed)))
                    }
                    start = end
                    let before = inFlight.count
                    submitWaiting()
                    refilled += max(0, inFlight.count - before)
                    if writeFailure == nil, refilled >= min(Self.refillsPerWrite, max(1, streamLimit(session) / 4)) {
                        refilled = 0
                        do throws(TransportError) { try flushOutput() } catch { writeFailure = error }
                    }
                }
            case let .wouldBlock(wantsWrite):
                readNeedsWritable = wantsWrite
                if let writeFailure { throw writeFailure }
                return
            case .closed:
                throw TransportError(.connectionLost, "server closed the connection")
            case let .failed(message):
                throw TransportError(.connectionLost, message)
            }
        }
    }

    /// Input is handed to nghttp2 this much at a time (see `readInput`).
    private static let inputSlice = 1024
    /// Refilled streams are written during a read once there are this many
    /// (or a quarter of a smaller stream limit): ~30 KB of APNs requests.
    private static let refillsPerWrite = 32

    private func checkTimers() {
        guard let session else { return }
        let now = ContinuousClock.now
        guard now >= nextTimerCheck else { return }
        nextTimerCheck = now + Self.timerResolution
        for (streamID, stream) in inFlight where stream.deadline <= now {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
            stream.finish(.failure(TransportError(.timeout, "no response from \(host) within \(stream.request.timeout)")))
        }
        expireWaiting(now: now, "no stream slot on \(host) within the timeout")
        if let pingSentAt {
            if now - pingSentAt > options.pingTimeout {
                fatal = TransportError(.connectionLost, "PING to \(host) unanswered for \(options.pingTimeout)")
            }
        } else if now - lastFrameReceived > options.idlePingInterval {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            pingSentAt = now
        }
    }

    /// Ends every waiting request whose deadline has passed, wherever it is in
    /// the list: the pool's resends keep their first attempt's start, so an
    /// earlier deadline may wait behind a later one.
    private func expireWaiting(now: ContinuousClock.Instant, _ reason: @autoclosure () -> String) {
        var expired = 0
        for index in waitingHead..<waiting.count where !waiting[index].finished && waiting[index].deadline <= now {
            complete(waiting[index], .failure(TransportError(.timeout, reason())))
            expired += 1
        }
        guard expired > 0 else { return }
        waiting.removeSubrange(0..<waitingHead)
        waitingHead = 0
        waiting.removeAll { $0.finished }
    }

    /// Finishes a stream and releases its load slot.
    private func complete(_ stream: PendingStream, _ result: Result<HTTP2Response, TransportError>) {
        if !stream.finished { stream.finish(result) }
        load.subtract(1, ordering: .relaxed)
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
            for stream in inFlight.values { complete(stream, .failure(lost)) }
        }
        inFlight.removeAll()
        if didConnect, givenAny, !answeredAny, ContinuousClock.now - connectedAt < Self.healthyLifetime {
            endedWithoutAnswer.store(true, ordering: .relaxed)
        }
        if let session { nghttp2_session_del(session) }
        session = nil
        socket = nil
        onClose(self)
    }

    // MARK: nghttp2 callbacks (on the loop thread)

    /// The stream nghttp2 keeps for `streamID` (the pointer given to
    /// `nghttp2_submit_request`): no dictionary lookup per header or chunk.
    /// Valid while the stream is in `inFlight`, which holds it; nghttp2 calls
    /// back for a stream only until its close callback.
    private func pendingStream(_ streamID: Int32) -> Unmanaged<PendingStream>? {
        guard let session, let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<PendingStream>.fromOpaque(pointer)
    }

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = pendingStream(streamID) else { return }
        if name.elementsEqual(":status".utf8) {
            var status = 0
            for digit in value where digit >= 0x30 && digit <= 0x39 { status = status * 10 + Int(digit - 0x30) }
            stream._withUnsafeGuaranteedRef { $0.status = status }
        } else if let kept = keptHeaderBytes, !kept.contains(where: { $0.elementsEqual(name) }) {
            return
        } else {
            let header = HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            stream._withUnsafeGuaranteedRef { $0.responseHeaders.append(header) }
        }
    }

    fileprivate func data(streamID: Int32, chunk: UnsafeBufferPointer<UInt8>) {
        guard let stream = pendingStream(streamID) else { return }
        let limit = options.maximumResponseBody
        stream._withUnsafeGuaranteedRef { stream in
            let room = limit - stream.responseBody.count
            if room > 0 { stream.responseBody.append(contentsOf: chunk.prefix(room)) }
        }
    }

    /// A stream ended: a complete response, a refusal (not processed: safe to
    /// re-send), or a reset. A stream that already ended by timeout only
    /// gives back its load slot (`finish` ignores a second result).
    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return }
        switch (stream.status, errorCode) {
        case let (status?, NGHTTP2_NO_ERROR.rawValue):
            answeredAny = true
            let response = HTTP2Response(status: status, headers: stream.responseHeaders, body: stream.responseBody)
            if status != 200, let retires = options.retiresConnection, retires(response) { shutdown() }
            complete(stream, .success(response))
        case (nil, NGHTTP2_REFUSED_STREAM.rawValue):
            complete(stream, .failure(TransportError(.refused, "stream \(streamID) refused by \(host) (not processed)")))
        default:
            let name = String(cString: nghttp2_http2_strerror(errorCode))
            complete(stream, .failure(TransportError(.connectionLost, "stream \(streamID) reset by \(host): \(name)")))
        }
    }

    fileprivate func frameReceived(goaway: Bool, debug: String?, pingAck: Bool) {
        if goaway {
            let action = lifecycle.goawayReceived(from: host, debug: debug)
            inbox.withLock { state in
                state.closeReason = TransportError(.refused, "GOAWAY from \(host)\(debug.map { ": \($0)" } ?? "")")
            }
            apply(action)
        }
        if pingAck { pingSentAt = nil }
    }

    /// Carries out what the lifecycle decided.
    private func apply(_ action: ConnectionLifecycle.Action) {
        switch action {
        case .none, .close:
            break
        case let .stopAccepting(error):
            accepting.store(false, ordering: .relaxed)
            failWaiting(error)
        }
    }

    fileprivate func bodyChunk(_ stream: PendingStream, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (Int, Bool) {
        let remaining = stream.request.body.count - stream.bodyOffset
        let count = min(remaining, capacity)
        stream.request.body.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.bodyOffset, count: count)
        }
        stream.bodyOffset += count
        return (count, stream.bodyOffset == stream.request.body.count)
    }
}

private func nghttp2Message(_ call: String, _ code: Int32) -> String {
    "\(call) failed: \(String(cString: nghttp2_strerror(code)))"
}

private func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection {
    Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private let onHeaderCallback: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let name, let value else { return 0 }
    connection(userData).header(streamID: frame.pointee.hd.stream_id,
                                name: UnsafeBufferPointer(start: name, count: nameLength),
                                value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private let onDataChunkCallback: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    guard let data else { return 0 }
    connection(userData).data(streamID: streamID, chunk: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let onStreamCloseCallback: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    connection(userData).streamClosed(streamID: streamID, errorCode: errorCode)
    return 0
}

private let onFrameReceivedCallback: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let type = frame.pointee.hd.type
    if type == UInt8(NGHTTP2_GOAWAY.rawValue) {
        let goaway = frame.pointee.goaway
        var debug: String?
        if let opaque = goaway.opaque_data, goaway.opaque_data_len > 0 {
            debug = String(decoding: UnsafeBufferPointer(start: opaque, count: min(goaway.opaque_data_len, 512)), as: UTF8.self)
        }
        connection(userData).frameReceived(goaway: true, debug: debug, pingAck: false)
    } else if type == UInt8(NGHTTP2_PING.rawValue), frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
        connection(userData).frameReceived(goaway: false, debug: nil, pingAck: true)
    }
    return 0
}

private let readBodyCallback: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, userData in
    guard let buffer, let source, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let stream = Unmanaged<PendingStream>.fromOpaque(source.pointee.ptr).takeUnretainedValue()
    let (count, done) = connection(userData).bodyChunk(stream, into: buffer, capacity: length)
    if done { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
