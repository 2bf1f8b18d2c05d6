// HTTPServer's libmicrohttpd daemons: starting one on an event loop
// (`startDaemon`, `DaemonSource`), and the C callbacks it is given besides
// the access handler: the error log, request completion, connection
// open/close and the URI log (the connection table's upkeep).

#if canImport(Glibc)
import Glibc
#endif
import EventLoops
internal import CMicroHTTPD
import PushGWSync

extension HTTPServer {
    /// One daemon with no thread of its own, run by an event loop.
    func startDaemon(listening descriptor: Int32, share: Int) -> DaemonSource? {
        let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        let daemonLog = DaemonLog(server: self)
        let logContext = Unmanaged.passUnretained(daemonLog).toOpaque()
        // Each daemon takes its share of the limits (rounded down: the total never exceeds them).
        let connectionLimit = max(1, limits.maximumConnections / share)
        let perAddressLimit = limits.maximumConnectionsPerAddress == 0 ? 0 : max(1, limits.maximumConnectionsPerAddress / share)
        let options: [any CVarArg] = [
            // First, so that libmicrohttpd writes none of its messages to stderr itself.
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, unsafeBitCast(serverLog, to: OpaquePointer.self), OpaquePointer(logContext),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(connectionLimit),
            MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(perAddressLimit),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(limits.connectionTimeoutSeconds),
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, limits.connectionMemory,
            MHD_OPTION.LISTEN_SOCKET.rawValue, descriptor,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestCompleted, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionChanged, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.URI_LOG_CALLBACK.rawValue, unsafeBitCast(targetArrived, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unsafeBitCast(decodeEscapesButNUL, to: OpaquePointer.self), OpaquePointer(context),
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
        daemonLog.daemon.store(UInt(bitPattern: daemon), ordering: .releasing)
        return DaemonSource(pointer: daemon, epollDescriptor: epoll, log: daemonLog)
    }
}

/// One libmicrohttpd daemon, run by an event loop: each turn it does what
/// is ready (new connections, requests, resumed answers, timeouts), and the
/// loop polls its epoll descriptor.
///
/// `@unchecked Sendable`: `turn` runs only on its loop's thread; the server
/// quiesces the daemon there too, and stops it only once it is detached.
final class DaemonSource: EventLoopSource, @unchecked Sendable {
    let pointer: OpaquePointer
    let epollDescriptor: Int32
    /// The context of the daemon's error log, kept as long as the daemon.
    let log: DaemonLog

    init(pointer: OpaquePointer, epollDescriptor: Int32, log: DaemonLog) {
        self.pointer = pointer
        self.epollDescriptor = epollDescriptor
        self.log = log
    }

    func turn() -> EventLoopSourceTurn {
        _ = MHD_run(pointer)
        var timeout: UInt64 = 0
        let milliseconds = MHD_get_timeout(pointer, &timeout) == .YES ? Int32(clamping: timeout) : Int32.max
        return EventLoopSourceTurn(descriptor: epollDescriptor, timeoutMilliseconds: milliseconds)
    }
}

func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer {
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

/// libmicrohttpd's error log, formatted and handed to the server's `log`;
/// a message about a `Content-Length` is the moment to answer the request
/// before libmicrohttpd does (`answerUnreadableLengths`).
private let serverLog: MHD_LogCallback = { context, format, arguments in
    guard let context, let format, let arguments else { return }
    let daemonLog = Unmanaged<DaemonLog>.fromOpaque(context).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    var line = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while line.last?.isNewline == true { line.removeLast() }
    if strstr(format, "Content-Length") != nil {
        daemonLog.server.answerUnreadableLengths(daemon: daemonLog.daemon.load(ordering: .acquiring))
    }
    daemonLog.server.log(line)
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
        let daemon = UInt(bitPattern: pushgw_mhd_connection_daemon(connection))
        let now = ContinuousClock.now
        let entry = watch.table.withLock { $0.opened(key, socket: socket, daemon: daemon, now: now) }
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

/// libmicrohttpd's unescape callback: decodes `%HH` in place as its own
/// does (so `/heal%74hz` is `/healthz`), except `%00`, which stays as written:
/// decoded, its NUL would end the path early and `/v1/notify%00junk` would be
/// served as `/v1/notify`. Left encoded, it is simply not a route (404).
private let decodeEscapesButNUL: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = {
    _, _, text in
    guard let text else { return 0 }
    return UnsafeMutableRawPointer(text).withMemoryRebound(to: UInt8.self, capacity: strlen(text) + 1) { bytes in
        HTTPTargetEscapes.decodeInPlace(bytes)
    }
}

/// URI log callback: notes the length of the request target as it arrived
/// (up to its first NUL byte), before libmicrohttpd splits and unescapes it.
private let targetArrived: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    context, target, connection in
    guard let target, let connection else { return nil }
    let length = strlen(target)
    entry(of: connection)?.targetArrived(length: length, at: UnsafeRawPointer(target))
    return nil
}

/// The connection's `ConnectionEntry`, set when it opened.
func entry(of connection: OpaquePointer) -> ConnectionEntry? {
    guard let pointer = pushgw_mhd_connection_context(connection) else { return nil }
    return Unmanaged<ConnectionEntry>.fromOpaque(pointer).takeUnretainedValue()
}
