// HTTPServer: the class, its stored state, and its lifecycle (start,
// quiesce, stop). The daemons and their C callbacks are in
// HTTPServer+Daemon.swift, the listening socket in HTTPServer+Listen.swift,
// the access handler in HTTPServer+AccessHandler.swift, and the deferred
// answer in HTTPReply.swift; the limits are in HTTPServerLimits.swift.

#if canImport(Glibc)
import Glibc
#endif
public import EventLoops
internal import CMicroHTTPD
import PayloadBuilder
import Synchronization
import PushGWSync

/// The HTTP/1.1 ingest server on libmicrohttpd: one daemon per event loop
/// (epoll, driven by an `EventLoop` that also drives the provider
/// connections, one loop per core), and suspend/resume so that a request
/// waiting on providers holds no thread: the connection is suspended, the
/// answer comes later (from a provider connection on the same loop, or a
/// Swift task), and the connection is resumed with it.
///
/// Hostile clients: `RequestScreen` refuses ambiguous framing before any
/// handler runs, a `Content-Length` over the body limit is answered at once
/// (the body unread), and `ConnectionWatch` cuts connections whose request
/// does not arrive within `limits.requestTimeout`.
///
/// `@unchecked Sendable`: the daemons are set in `start` and taken in
/// `stop`, both under `state`'s mutex; each daemon is run only by its loop
/// (quiesced there too) until `stop` detaches it, which returns only once
/// the loop no longer calls it; from then on only `stop`'s thread runs it,
/// then stops it. The one call made on a daemon from other threads,
/// `MHD_resume_connection`, is thread-safe.
public final class HTTPServer: @unchecked Sendable {
    public let address: String
    public let limits: HTTPServerLimits
    let handler: any HTTPHandler
    /// Where libmicrohttpd's own messages go (dropped connections, parse errors).
    let log: @Sendable (String) -> Void
    private let requestedPort: Int
    /// The loops the daemons run on: given (shared with the provider
    /// connections), or the server's own, created in `start`.
    private let givenLoops: [EventLoop]?
    private let state = Locked<(daemons: [DaemonSource], loops: [EventLoop], port: Int)>(([], [], 0))
    /// Requests whose handler is running (suspended connections).
    let suspended = SuspendedReplies()
    /// Set by `quiesce()`: every answer from then on closes its connection.
    let closing = Atomic<Bool>(false)
    /// Open connections and their request deadlines.
    let watch: ConnectionWatch
    /// Where the memory of sent answers goes, for the handler to write
    /// later answers into; nil: freed.
    let answerStorage: AnswerStorage?

    /// - Parameters:
    ///   - loops: event loops to run on, one daemon each, shared with their
    ///     owner (the gateway runs its provider connections on them too);
    ///     nil: the server starts `limits.threads` loops of its own.
    ///   - log: receives libmicrohttpd's own messages, one line each,
    ///     instead of its plain-text writes to standard error.
    ///   - answerStorage: where each sent answer's memory goes once
    ///     libmicrohttpd is done with it, for the handler to write later
    ///     answers into (the handler's own); nil: freed.
    public init(address: String, port: Int, limits: HTTPServerLimits = HTTPServerLimits(), handler: any HTTPHandler,
                loops: [EventLoop]? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                answerStorage: AnswerStorage? = nil) {
        self.answerStorage = answerStorage
        self.address = address
        requestedPort = port
        self.limits = limits
        self.handler = handler
        self.log = log
        givenLoops = loops.flatMap { $0.isEmpty ? nil : $0 }
        watch = ConnectionWatch(requestTimeout: limits.requestTimeout)
    }

    deinit {
        stop()
    }

    /// A body over the limit whose length was not announced (chunked) is
    /// read and dropped, so that the client can read its 413, up to this
    /// many times the limit; then the connection is cut.
    static let droppedBodyFactor = 16

    /// The port actually bound (useful with port 0).
    public var port: Int { state.withLock { $0.port } }

    public func start() throws(HTTPServerStartError) {
        let listener = try Self.listen(address, port: requestedPort)
        let loops: [EventLoop]
        if let givenLoops {
            loops = givenLoops
        } else {
            do {
                loops = try (0..<max(1, limits.threads)).map { index throws(EventLoopError) in
                    try EventLoop(name: "pushgw-http-\(index)")
                }
            } catch {
                close(listener.descriptor)
                throw HTTPServerStartError(.threads, "cannot start the HTTP server's threads: \(error)")
            }
        }
        var daemons: [DaemonSource] = []
        for (index, loop) in loops.enumerated() {
            // Every daemon accepts on the same socket, each through its own
            // descriptor (it closes its own when it stops).
            let descriptor = index == 0 ? listener.descriptor : dup(listener.descriptor)
            guard descriptor >= 0, let daemon = startDaemon(listening: descriptor, share: loops.count) else {
                // This daemon did not start: its descriptor is ours to close
                // (for the first, the listener itself). Those that did start
                // leave their loops, then close their own when stopped.
                if descriptor >= 0 { close(descriptor) }
                for (started, loop) in zip(daemons, loops) {
                    loop.detach(started)
                    MHD_stop_daemon(started.pointer)
                }
                if givenLoops == nil { for loop in loops { loop.retire() } }
                throw HTTPServerStartError(.listen, "cannot start the HTTP server on \(address):\(listener.port)")
            }
            daemons.append(daemon)
            loop.attach(daemon)
        }
        state.withLock { $0 = (daemons, loops, listener.port) }
        watch.start()
    }

    /// Connections open right now (at most `limits.maximumConnections`).
    public var openConnections: Int { watch.table.withLock { $0.count } }

    /// Requests being handled right now.
    public var activeRequests: Int { suspended.count }

    /// Requests that have begun to arrive (a body still uploading) and are
    /// not yet with the handler: a shutdown waits for them too, so that they
    /// get an answer (503 `shutting_down` for a notify) rather than a
    /// closed connection.
    public var requestsBeingReceived: Int { watch.table.withLock { $0.receiving } }

    /// Stops accepting connections; requests in progress go on, and every
    /// answer from now on carries `Connection: close` (a keep-alive client
    /// takes its next request elsewhere instead of finding the connection
    /// closed under it by the stop).
    public func quiesce() {
        closeConnectionsAfterAnswers()
        let (daemons, loops) = state.withLock { ($0.daemons, $0.loops) }
        for (daemon, loop) in zip(daemons, loops) {
            loop.perform {
                let listener = MHD_quiesce_daemon(daemon.pointer)
                if listener >= 0 { close(listener) }
            }
        }
    }

    /// From now on every answer carries `Connection: close`: clients let go
    /// of their kept-alive connections and open new ones, which a load
    /// balancer that has stopped routing here sends elsewhere.
    public func closeConnectionsAfterAnswers() {
        closing.store(true, ordering: .sequentiallyConsistent)
    }

    /// Stops listening and closes every connection. A request still
    /// waiting for its answer is answered 503 `shutting_down` (it may have
    /// been sent to some devices: the client retries with the same
    /// `event_id`), if its connection can still take it.
    public func stop() {
        let (daemons, loops) = state.withLock { state -> ([DaemonSource], [EventLoop]) in
            defer { state.daemons = []; state.loops = [] }
            return (state.daemons, state.loops)
        }
        watch.stop()
        // From here on only this thread runs the daemons.
        for (daemon, loop) in zip(daemons, loops) { loop.detach(daemon) }
        // libmicrohttpd aborts when stopped with a connection suspended:
        // resume every waiting request here, with its answer if it has one
        // by now, else 503, and let the daemons take the connections back
        // (and write what they can at once).
        for reply in suspended.close() { reply.resumeForStop(Self.shuttingDown) }
        for daemon in daemons {
            for _ in 0..<2 { _ = MHD_run(daemon.pointer) }
        }
        for daemon in daemons { MHD_stop_daemon(daemon.pointer) }
        if givenLoops == nil { for loop in loops { loop.retire() } }
    }

    /// The answer to a request the server stops before its answer is ready.
    static let shuttingDown = HTTPResponse(status: 503, body: EventError(
        .shuttingDown, field: nil,
        "the gateway stopped before this request was answered; some devices may have been sent: retry with the same event_id").jsonBody)
}
