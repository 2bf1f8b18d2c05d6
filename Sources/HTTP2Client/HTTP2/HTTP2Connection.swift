#if canImport(Glibc)
import Glibc
#endif
import EventLoops
import NetworkSockets
internal import CNGHTTP2
import Foundation
import Synchronization
import PushGWSync

/// One HTTP/2 client connection over TLS, driven by an event-loop thread
/// (an `EventLoop` of its pool, shared with another of the pool's
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
/// failure) to the loop through the inbox. That state is internal, not
/// private, only so that this type's `HTTP2Connection+….swift` extensions
/// reach it; no other type touches it.
public final class HTTP2Connection: @unchecked Sendable {
    public let host: String
    public let port: Int
    let options: HTTP2ConnectionOptions
    let tls: TLSClientContext

    struct Inbox {
        /// Optional entries, as in `StreamQueue` (which takes this list over).
        var queued: [PendingStream?] = []
        var wakePending = false
        var closed = false
        var closeReason = TransportError(.shutdown, "connection closed")
        var shutdownRequested = false
        /// What the connecting thread achieved, until the loop takes it.
        var connectResult: Result<TLSSocket, TransportError>?
        /// Streams the loop took back after they closed, for `send` to reuse.
        var spareStreams: [PendingStream] = []
    }

    let inbox = Locked(Inbox())
    /// The thread that drives this connection once it is connected.
    let loop: EventLoop
    /// The loop is this connection's alone: retired when the connection ends.
    let ownsLoop: Bool
    let load = Atomic<Int>(0)
    let accepting = Atomic<Bool>(true)
    let connectedFlag = Atomic<Bool>(false)
    let endedWithoutAnswer = Atomic<Bool>(false)
    /// `answeredAny`, for other threads.
    let answeredFlag = Atomic<Bool>(false)
    /// DNS, TCP and TLS must be done by then.
    let connectDeadline: ContinuousClock.Instant
    let onClose: @Sendable (HTTP2Connection) -> Void

    // Loop-thread state.
    var socket: TLSSocket?
    var session: OpaquePointer?
    /// The pool `session` allocates from (`pgw_h2_pool`): freed right after it.
    var sessionMemory: OpaquePointer?
    /// Streams waiting for a stream slot.
    var waiting = StreamQueue()
    /// Streams taken back since the inbox was last drained (`recycle`).
    var recycled: [PendingStream] = []
    /// Most streams kept for reuse, in the inbox and `recycled` each: about
    /// as many as a busy connection has queued and in flight at once (the
    /// benchmark's 900), ~300 bytes each.
    static let spareStreamLimit = 1024
    var inFlight = InFlightStreams()
    var output: [UInt8] = []
    var outputOffset = 0
    /// The last write would have blocked: poll for writability.
    var wantsWriteReadiness = false
    /// TLS must write before it can read on (a TLS 1.3 key update's answer
    /// into a full socket): poll for writability too, then read again.
    var readNeedsWritable = false
    /// TLS must read before it can write on: the socket is not full, so
    /// polling for writability would only spin; the write waits for input.
    var writeNeedsReadable = false
    /// Request bodies against the server's connection window.
    var flow = BodyFlowControl()
    /// Records read ahead with the end of the handshake are inside OpenSSL,
    /// out of `poll`'s sight: the first turn reads before any poll.
    var needsFirstRead = true
    /// Torn down: the loop lets go of it.
    var ended = false
    var lifecycle = ConnectionLifecycle()
    var fatal: TransportError?
    var lastFrameReceived = ContinuousClock.now
    var connectedAt = ContinuousClock.now
    /// A request was queued on this connection (taken from the inbox).
    var givenAny = false
    /// A response (any status) arrived on this connection.
    var answeredAny = false
    /// A connection that ends sooner than this after its handshake, without
    /// a single answer, counts as failed: its pool backs off.
    static let healthyLifetime: Duration = .seconds(10)
    var pingSentAt: ContinuousClock.Instant?
    /// Deadlines are scanned at most this often, not on every loop turn.
    var nextTimerCheck = ContinuousClock.now
    static let timerResolution: Duration = .milliseconds(20)
    /// How the requests' header names are indexed, and which of the names
    /// indexed once were sent.
    let headerNaming: HeaderNaming
    var headerIndexing = HeaderIndexing()
    /// `:authority`, copied into each batch's bytes.
    let authority: String
    /// `options.keptHeaderBytes`, read once.
    let keptHeaderBytes: [[UInt8]]?
    /// Bit n set: some kept header name has n bytes (n < 64; a longer name
    /// sets bit 63, which sends every name of 63 bytes or more to the
    /// comparison). A response header of another length is passed over
    /// without looking at the kept names (most are: `date`, `server`…).
    let keptHeaderLengths: UInt64
    /// `options.retiresConnection`, read once (no copy of the closure per answer).
    let retiresConnection: (@Sendable (HTTP2Response) -> Bool)?
    /// `options.timesAnswer`, read once.
    let timesAnswer: (@Sendable (Duration) -> Void)?

    /// Creates the connection, on an event loop of its own, and connects at
    /// once. `onClose` runs on the loop thread when the connection stops
    /// taking requests.
    public convenience init(host: String, port: Int, tls: TLSConfiguration, options: HTTP2ConnectionOptions = HTTP2ConnectionOptions(),
                onClose: @escaping @Sendable (HTTP2Connection) -> Void = { _ in }) throws(TransportError) {
        try self.init(host: host, port: port, context: TLSClientContext.http2(tls), options: options, loop: nil, onClose: onClose)
    }

    /// - Parameter loop: the loop to run on once connected (a pool's); nil
    ///   starts one for this connection alone.
    init(host: String, port: Int, context: TLSClientContext, options: HTTP2ConnectionOptions, loop: EventLoop?,
         onClose: @escaping @Sendable (HTTP2Connection) -> Void) throws(TransportError) {
        self.host = host
        self.port = port
        self.options = options
        keptHeaderBytes = options.keptHeaderBytes
        keptHeaderLengths = options.keptHeaderBytes?.reduce(0) { $0 | 1 << UInt64(min($1.count, 63)) } ?? .max
        retiresConnection = options.retiresConnection
        timesAnswer = options.timesAnswer
        authority = port == 443 ? host : "\(host):\(port)"
        headerNaming = HeaderNaming(unindexed: options.unindexedHeaderBytes, indexedOnce: options.indexedOnceHeaderBytes)
        tls = context
        self.onClose = onClose
        connectDeadline = ContinuousClock.now + options.connectTimeout
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            do { self.loop = try EventLoop(name: "pushgw-h2-\(host)") } catch { throw TransportError(error) }
            ownsLoop = true
        }
        guard self.loop.adopt(self) else { throw TransportError(.shutdown, "the event loop for \(host) has stopped") }
        let thread = Thread { [self] in
            ThreadName.setCurrent("pushgw-connect")
            connect()
        }
        thread.start()
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

    /// Whether any request got its response on this connection.
    public var hasAnswered: Bool { answeredFlag.load(ordering: .relaxed) }

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
        await send(HTTP2Requests(requests), startedAt: ContinuousClock.now)
    }

    /// As `send(_:)`, with each request's timeout counted from `startedAt`
    /// (the pool passes the time of the first attempt).
    func send(_ requests: HTTP2Requests, startedAt: ContinuousClock.Instant) async -> [Result<HTTP2Response, TransportError>] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Result<HTTP2Response, TransportError>], Never>) in
            send(requests, startedAt: startedAt) { continuation.resume(returning: $0) }
        }
    }

    /// As `send(_:startedAt:)`, calling `completion` with the results instead
    /// of suspending a task: on the loop thread when the last response is in,
    /// or at once on the caller's thread when the batch is refused. The
    /// dispatcher's notify path uses it to answer without a task hop.
    func send(_ requests: HTTP2Requests, startedAt: ContinuousClock.Instant,
              completion: @escaping @Sendable (consuming [Result<HTTP2Response, TransportError>]) -> Void) {
        send(requests, in: requests.indices, startedAt: startedAt, completion: completion)
    }

    /// As `send(_:startedAt:completion:)`, for `requests[range]` alone (a
    /// pool's share of a group, sent without copying the requests out).
    func send(_ requests: HTTP2Requests, in range: Range<Int>, startedAt: ContinuousClock.Instant,
              completion: @escaping @Sendable (consuming [Result<HTTP2Response, TransportError>]) -> Void) {
        let batch = BatchCompletion(requests: requests, range: range, authority: authority, naming: headerNaming, deliver: completion)
        guard !range.isEmpty else { return }
        // A request whose time is already up is not sent at all: it ends now,
        // on this thread, before the others are handed to the loop.
        let elapsed = ContinuousClock.now - startedAt
        // Whether request `range.lowerBound + i` has expired; empty: none has.
        var expired: [Bool] = []
        let table = batch.bytes
        if range.contains(where: { table.timeout($0) <= elapsed }) {
            expired = range.map { table.timeout($0) <= elapsed }
            for index in range where expired[index - range.lowerBound] {
                batch.complete(index, .failure(TransportError(.timeout, "no time left to send to \(host)")))
            }
            if !expired.contains(false) { return }
        }
        let count = expired.isEmpty ? range.count : expired.count { !$0 }
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
            if load.load(ordering: .relaxed) + count > options.maximumQueued + options.maximumConcurrentStreams {
                return (TransportError(.overloaded, "more than \(options.maximumQueued) requests waiting on \(host)"), false)
            }
            // Streams the loop took back are reused (no allocation); new ones
            // only when none is spare.
            state.queued.reserveCapacity(state.queued.count + count)
            let startedSinceOrigin = startedAt - PendingStream.origin
            for index in range where expired.isEmpty || !expired[index - range.lowerBound] {
                if let spare = state.spareStreams.popLast() {
                    spare.reuse(batch: batch, index: index, startedSinceOrigin: startedSinceOrigin)
                    state.queued.append(consume spare)
                } else {
                    state.queued.append(PendingStream(batch: batch, index: index, startedSinceOrigin: startedSinceOrigin))
                }
            }
            load.add(count, ordering: .relaxed)
            let wake = !state.wakePending
            state.wakePending = true
            return (nil, wake)
        }
        if let refusal = outcome.refusal {
            for index in range where expired.isEmpty || !expired[index - range.lowerBound] { batch.complete(index, .failure(refusal)) }
        } else if outcome.wake, !loop.isCurrent {
            // On the loop's own thread the loop turns right after: no wake-up.
            wake()
        }
    }

    /// What a request gets from a connection that drains (after GOAWAY or a
    /// shutdown): not sent, so its pool sends it elsewhere.
    var closingRefusal: TransportError { TransportError(.notSent, "connection to \(host) is closing") }

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

    func wake() {
        loop.wake()
    }
}
