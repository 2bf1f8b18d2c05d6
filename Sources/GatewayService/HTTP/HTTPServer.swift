#if canImport(Glibc)
import Glibc
#endif
public import APNsHTTP2
internal import CMicroHTTPD
import Foundation
import PayloadBuilder
import Synchronization
import PushGWSync

/// Bounds the server puts on clients, so a slow or hostile client cannot
/// hold more than its share.
public struct HTTPServerLimits: Sendable {
    /// Largest request body; more is answered by the handler as too large.
    public var maximumBodyBytes = 64 * 1024
    /// Per-connection memory for headers and buffers (caps header size).
    /// libmicrohttpd zeroes it between requests, so it is kept small: 16 KiB
    /// against 32 cut /healthz CPU per request by 7–16% (A/B runs).
    public var connectionMemory = 16 * 1024
    public var maximumConnections = 1024
    /// Most connections one client address may hold (0: no limit of its
    /// own), so that one client cannot take every slot. Enforced by each
    /// event loop's daemon for its share, as `maximumConnections` is.
    public var maximumConnectionsPerAddress = 0
    /// Idle seconds before a connection is closed. Every byte received
    /// resets it, so it does not stop a client that trickles bytes.
    public var connectionTimeoutSeconds = 15
    /// A request's headers and body must arrive within this time, counted
    /// from the connection's opening or the end of the previous response;
    /// a connection that takes longer (slowloris, a body that never ends)
    /// is cut. The handler's own time is not counted.
    public var requestTimeout: Duration = .seconds(10)
    /// Event loops (a thread and a libmicrohttpd daemon each) the server
    /// starts when it is given none; defaults to the number of cores.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}
}

/// The HTTP/1.1 ingest server on libmicrohttpd: one daemon per event loop
/// (epoll, driven by an `HTTP2EventLoop` that also drives the provider
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
    private let givenLoops: [HTTP2EventLoop]?
    private let state = Locked<(daemons: [DaemonSource], loops: [HTTP2EventLoop], port: Int)>(([], [], 0))
    /// Requests whose handler is running (suspended connections).
    let suspended = SuspendedReplies()
    /// Set by `quiesce()`: every answer from then on closes its connection.
    let closing = Atomic<Bool>(false)
    /// Open connections and their request deadlines.
    let watch: ConnectionWatch

    /// - Parameters:
    ///   - loops: event loops to run on, one daemon each, shared with their
    ///     owner (the gateway runs its provider connections on them too);
    ///     nil: the server starts `limits.threads` loops of its own.
    ///   - log: receives libmicrohttpd's own messages, one line each,
    ///     instead of its plain-text writes to standard error.
    public init(address: String, port: Int, limits: HTTPServerLimits = HTTPServerLimits(), handler: any HTTPHandler,
                loops: [HTTP2EventLoop]? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
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

    public func start() throws(ServiceError) {
        let listener = try Self.listen(address, port: requestedPort)
        let loops: [HTTP2EventLoop]
        if let givenLoops {
            loops = givenLoops
        } else {
            do {
                loops = try (0..<max(1, limits.threads)).map { index throws(TransportError) in
                    try HTTP2EventLoop(name: "pushgw-http-\(index)")
                }
            } catch {
                close(listener.descriptor)
                throw ServiceError(setting: "threads", "cannot start the HTTP server's threads: \(error)")
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
                throw ServiceError(setting: "listen", "cannot start the HTTP server on \(address):\(listener.port)")
            }
            daemons.append(daemon)
            loop.attach(daemon)
        }
        state.withLock { $0 = (daemons, loops, listener.port) }
        watch.start()
    }

    /// One daemon with no thread of its own, run by an event loop.
    private func startDaemon(listening descriptor: Int32, share: Int) -> DaemonSource? {
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Each daemon takes its share of the limits (rounded down: the total never exceeds them).
        let connectionLimit = max(1, limits.maximumConnections / share)
        let perAddressLimit = limits.maximumConnectionsPerAddress == 0 ? 0 : max(1, limits.maximumConnectionsPerAddress / share)
        let options: [any CVarArg] = [
            // First, so that libmicrohttpd writes none of its messages to stderr itself.
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, unsafeBitCast(serverLog, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(connectionLimit),
            MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(perAddressLimit),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(limits.connectionTimeoutSeconds),
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, limits.connectionMemory,
            MHD_OPTION.LISTEN_SOCKET.rawValue, descriptor,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestCompleted, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionChanged, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.URI_LOG_CALLBACK.rawValue, unsafeBitCast(targetArrived, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.END.rawValue,
        ]
        let daemon = withVaList(options) { list in
            MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, context, list)
        }
        guard let daemon else { return nil }
        let epoll = pushgw_mhd_daemon_epoll_fd(daemon)
        guard epoll >= 0 else {
            MHD_stop_daemon(daemon)
            return nil
        }
        return DaemonSource(pointer: daemon, epollDescriptor: epoll)
    }

    /// Connections open right now (at most `limits.maximumConnections`).
    public var openConnections: Int { watch.table.withLock { $0.count } }

    /// Requests being handled right now.
    public var activeRequests: Int { suspended.count }

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
        let (daemons, loops) = state.withLock { state -> ([DaemonSource], [HTTP2EventLoop]) in
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

    /// Binds and listens on `address:port` (port 0: any free port).
    private static func listen(_ address: String, port: Int) throws(ServiceError) -> (descriptor: Int32, port: Int) {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, address, &ipv6) == 1 {
            family = AF_INET6
        } else {
            throw ServiceError(setting: "listen", "\(address) is not an IP address (use e.g. 127.0.0.1 or 0.0.0.0)")
        }
        // Linux's SOCK_STREAM | SOCK_CLOEXEC. Spelled out because in release builds
        // <sys/socket.h>'s enum is claimed by the CMicroHTTPD module map and is not
        // visible under that name here.
        let streamCloseOnExec: Int32 = 1 | 0o2000000
        let descriptor = socket(family, streamCloseOnExec, 0)
        guard descriptor >= 0 else { throw ServiceError(setting: "listen", "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if family == AF_INET {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
            socketAddress.sin_addr = ipv4
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: socketAddress) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(port).bigEndian)
            socketAddress.sin6_addr = ipv6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: socketAddress) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, Glibc.listen(descriptor, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ServiceError(setting: "listen", "cannot listen on \(address):\(port): \(reason)")
        }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let boundPort = withUnsafeBytes(of: storage) { bytes -> Int in
            // sin_port and sin6_port sit at the same offset, in network order.
            Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        }
        return (descriptor, boundPort)
    }
}

/// One request's state across libmicrohttpd's calls: the body as it
/// arrives, then the answer the handler task produced.
///
/// `@unchecked Sendable`: the body is written only by the thread running
/// this connection's daemon (its event loop, or `stop()`'s thread once the
/// loop has let go of it; calls for one connection are serialized); the
/// response crosses from the handler task back to that thread through a Mutex.
final class RequestState: @unchecked Sendable {
    var body: [UInt8] = []
    /// Body bytes received, kept or not.
    var received = 0
    var tooLarge = false
    var started = false
    let response = Locked<HTTPResponse?>(nil)
}

/// One libmicrohttpd daemon, run by an event loop: each turn it does what
/// is ready (new connections, requests, resumed answers, timeouts), and the
/// loop polls its epoll descriptor.
///
/// `@unchecked Sendable`: `turn` runs only on its loop's thread; the server
/// quiesces the daemon there too, and stops it only once it is detached.
private final class DaemonSource: EventLoopSource, @unchecked Sendable {
    let pointer: OpaquePointer
    let epollDescriptor: Int32

    init(pointer: OpaquePointer, epollDescriptor: Int32) {
        self.pointer = pointer
        self.epollDescriptor = epollDescriptor
    }

    func turn() -> EventLoopSourceTurn {
        _ = MHD_run(pointer)
        var timeout: UInt64 = 0
        let milliseconds = MHD_get_timeout(pointer, &timeout) == .YES ? Int32(clamping: timeout) : Int32.max
        return EventLoopSourceTurn(descriptor: epollDescriptor, timeoutMilliseconds: milliseconds)
    }
}

private func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer {
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

/// A C handle that crosses from the thread running its daemon to whoever answers.
///
/// `@unchecked Sendable`: `HTTPReply` uses it for exactly one call,
/// `MHD_resume_connection`, which libmicrohttpd allows from any thread on a
/// suspended connection; the connection cannot be freed while suspended.
private struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, version, uploadData, uploadSize, requestContext in
    guard let connection, let requestContext, let uploadSize else { return .NO }
    let server = server(context)
    if requestContext.pointee == nil {
        let state = RequestState()
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        if let refusal = screen(connection, url: url, version: version) {
            state.started = true
            entry(of: connection)?.answering()
            server.handler.answered(path: path(of: url), refusal)
            return queue(refusal, on: connection, closing: server)
        }
        // A client that waits for 100 Continue before sending its body is
        // refused (auth, method, route) before it uploads anything.
        if MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") != nil,
           let early = server.handler.respondBeforeBody(request(connection, url: url, method: method, state: state)) {
            state.started = true
            entry(of: connection)?.answering()
            return queue(early, on: connection, closing: server)
        }
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
           length > server.limits.maximumBodyBytes {
            // Answered now, before the body: libmicrohttpd then closes the
            // connection instead of reading what was announced.
            state.tooLarge = true
            state.started = true
            entry(of: connection)?.answering()
            let request = request(connection, url: url, method: method, state: state)
            let response = server.handler.respondImmediately(request)
                ?? HTTPResponse(status: 413, body: EventError(.bodyTooLarge, field: nil,
                                                              "the body is larger than \(server.limits.maximumBodyBytes) bytes").jsonBody)
            return queue(response, on: connection, closing: server)
        }
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(requestContext.pointee!).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        state.received += uploadSize.pointee
        if state.tooLarge, state.received > server.limits.maximumBodyBytes * HTTPServer.droppedBodyFactor {
            return .NO // a body without end (chunked): cut rather than drop bytes until the deadline
        }
        if !state.tooLarge, let uploadData {
            if state.body.count + uploadSize.pointee > server.limits.maximumBodyBytes {
                state.tooLarge = true
                state.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) { bytes in
                    state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: uploadSize.pointee))
                }
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    if let response = state.response.withLock({ $0 }) {
        return queue(response, on: connection, closing: server)
    }
    guard !state.started else { return .YES }
    state.started = true
    let request = request(connection, url: url, method: method, state: state)
    state.body = []
    let handler = server.handler
    entry(of: connection)?.answering()
    if let response = handler.respondImmediately(request) {
        return queue(response, on: connection, closing: server)
    }
    let reply = HTTPReply(connection: SuspendedConnection(pointer: connection), state: state, server: server, path: request.path)
    guard server.suspended.add(reply) else {
        handler.answered(path: request.path, HTTPServer.shuttingDown)
        return queue(HTTPServer.shuttingDown, on: connection, closing: server)
    }
    MHD_suspend_connection(connection)
    if !handler.respondLater(request, reply: reply) {
        Task {
            let response = await handler.handle(request)
            if reply.send(response) { handler.answered(path: request.path, response) }
        }
    }
    return .YES
}

/// How a handler answers a request from any thread, later: the connection
/// waits suspended (holding no thread) until `send` resumes it.
public final class HTTPReply: Sendable {
    private let connection: SuspendedConnection
    private let state: RequestState
    private let server: HTTPServer

    /// The request's path, to count a 503 the server gives it when stopping.
    private let path: String

    fileprivate init(connection: SuspendedConnection, state: RequestState, server: HTTPServer, path: String) {
        self.connection = connection
        self.state = state
        self.server = server
        self.path = path
    }

    /// Answers the request; only the first answer counts. Returns whether
    /// this answer is the one the client gets (false when the server,
    /// stopping, answered first): count it only then.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Bool {
        guard answer(response) else { return false }
        server.suspended.answered(self) { MHD_resume_connection(connection.pointer) }
        return true
    }

    /// The server is stopping and has taken this request from the waiting
    /// ones: its connection is resumed here, with the handler's answer if
    /// it came first, else with `response`. Whatever `send` does meanwhile
    /// resumes nothing, so the connection is resumed exactly once, before
    /// the daemon stops.
    fileprivate func resumeForStop(_ response: HTTPResponse) {
        if answer(response) { server.handler.answered(path: path, response) }
        MHD_resume_connection(connection.pointer)
    }

    /// Stores the answer unless one is stored already; true when stored.
    private func answer(_ response: HTTPResponse) -> Bool {
        state.response.withLock { stored in
            guard stored == nil else { return false }
            stored = response
            return true
        }
    }
}

/// `RequestScreen` on this request's headers and target.
///
/// The target is intact when the length seen by the URI log callback (up to
/// the first NUL) reaches the space before the HTTP version: libmicrohttpd
/// parses the request line in place, so `url` and `version` point into it.
private func screen(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> HTTPResponse? {
    var intact = true
    if let url, let version, version.pointee != 0,
       let length = entry(of: connection)?.targetLength {
        intact = url + length + 1 == version
    }
    var screening = RequestScreen.Screening()
    _ = withUnsafeMutablePointer(to: &screening) { pointer in
        MHD_get_connection_values_n(connection, .HEADER_KIND, screenHeader, pointer)
    }
    return screening.refusal(targetIntact: intact)
}

/// Feeds one header, with the lengths libmicrohttpd reports (a CR inside
/// is kept; a NUL ends the value), to the `RequestScreen.Screening` passed
/// as the context, without copying it.
private let screenHeader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    let screening = context!.assumingMemoryBound(to: RequestScreen.Screening.self)
    screening.pointee.add(name: UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize),
                          value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
    return .YES
}

/// URI log callback: notes the length of the request target as it arrived
/// (up to its first NUL byte), before libmicrohttpd splits and unescapes it.
private let targetArrived: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    context, target, connection in
    guard let target, let connection else { return nil }
    let length = strlen(target)
    entry(of: connection)?.targetArrived(length: length)
    return nil
}

/// The request as the handler sees it: method, path, the headers it reads, the body so far.
private func request(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                     state: RequestState) -> HTTPRequest {
    let authorization = MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) }
    return HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: path(of: url), authorization: authorization,
                       body: state.body, bodyTooLarge: state.tooLarge)
}

/// The request target without its query, found among the bytes (not by Character).
private func path(of url: UnsafePointer<CChar>?) -> String {
    guard let url else { return "/" }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self), count: strlen(url))
    return String(decoding: bytes.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
}

/// Queues `response` on `connection`; once `server` quiesces, with
/// `Connection: close` (libmicrohttpd then closes after sending it).
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, closing server: HTTPServer) -> MHD_Result {
    // MUST_COPY: libmicrohttpd copies the bytes before this returns and never
    // writes through the pointer, so the body's own buffer is lent as it is
    // (a mutable copy of the array would copy its storage first).
    let handle = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let handle else { return .NO }
    defer { MHD_destroy_response(handle) }
    _ = MHD_add_response_header(handle, "Content-Type", response.contentType)
    _ = MHD_add_response_header(handle, "Cache-Control", "no-store")
    for field in response.headers { _ = MHD_add_response_header(handle, field.name, field.value) }
    if server.closing.load(ordering: .relaxed) { _ = MHD_add_response_header(handle, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), handle)
}

/// libmicrohttpd's error log, formatted and handed to the server's `log`.
private let serverLog: MHD_LogCallback = { context, format, arguments in
    guard let context, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    var line = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while line.last?.isNewline == true { line.removeLast() }
    server(context).log(line)
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    let now = ContinuousClock.now
    if let connection { entry(of: connection)?.completed(now: now) }
    guard let requestContext, let pointer = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(pointer).release()
    requestContext.pointee = nil
}

/// Keeps the connection table: a connection opened (its first request is
/// due) or closed (forgotten before libmicrohttpd closes its socket).
private let connectionChanged: MHD_NotifyConnectionCallback = { context, connection, socketContext, change in
    guard let connection, let socketContext else { return }
    let watch = server(context).watch
    let key = UInt(bitPattern: connection)
    if change == .CONNECTION_NOTIFY_STARTED {
        let socket = pushgw_mhd_connection_socket(connection)
        let now = ContinuousClock.now
        let entry = watch.table.withLock { $0.opened(key, socket: socket, now: now) }
        // The connection holds its entry until it closes: per-request updates
        // find it here, with no table lookup.
        socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
    } else {
        watch.table.withLock { $0.closed(key) }
        if let pointer = socketContext.pointee {
            Unmanaged<ConnectionEntry>.fromOpaque(pointer).release()
            socketContext.pointee = nil
        }
    }
}

/// The connection's `ConnectionEntry`, set when it opened.
private func entry(of connection: OpaquePointer) -> ConnectionEntry? {
    guard let pointer = pushgw_mhd_connection_context(connection) else { return nil }
    return Unmanaged<ConnectionEntry>.fromOpaque(pointer).takeUnretainedValue()
}
