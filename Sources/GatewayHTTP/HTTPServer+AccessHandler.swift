// HTTPServer's access handler: libmicrohttpd's per-request callback, which
// screens the request, reads its body (`RequestState`), answers at once or
// suspends the connection for a later `HTTPReply`; and the helpers it uses
// (screening, the request as the handler sees it, queueing a response).

#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD
import PayloadBuilder
import Synchronization
import PushGWSync

/// One request's state across libmicrohttpd's calls: the body as it
/// arrives, then the answer the handler task produced.
///
/// `@unchecked Sendable`: the body and the sent body are written only by
/// the thread running this connection's daemon (its event loop, or `stop()`'s thread once the
/// loop has let go of it; calls for one connection are serialized); the
/// response crosses from the handler task back to that thread through a Mutex.
///
/// `@exclusivity(unchecked)`: for the same reason no two accesses to these
/// can overlap (one thread, one call at a time, and no access is held
/// across a call out); the run-time check cost a `swift_beginAccess` per
/// access, four per request.
final class RequestState: @unchecked Sendable {
    @exclusivity(unchecked) var body: [UInt8] = []
    /// Body bytes received, kept or not.
    @exclusivity(unchecked) var received = 0
    @exclusivity(unchecked) var tooLarge = false
    @exclusivity(unchecked) var started = false
    /// The `Authorization` header's value, as the screen read it.
    @exclusivity(unchecked) var authorization: String?
    /// For a chunked body: the room its trailers may take in the
    /// connection's memory beside the headers (`RequestScreen`); nil otherwise.
    @exclusivity(unchecked) var trailerRoom: Int?
    let response = Locked<HTTPResponse?>(nil)
    /// The body of the response queued, lent to libmicrohttpd until it
    /// destroys the response (`queue`); set once, by the daemon's thread.
    @exclusivity(unchecked) var sentBody: [UInt8] = []
    /// Where `sentBody`'s memory goes when the state goes (once
    /// libmicrohttpd is done with the answer): the server's, if it has one.
    let answerStorage: AnswerStorage?

    init(answerStorage: AnswerStorage?) {
        self.answerStorage = answerStorage
    }

    deinit {
        answerStorage?.keep(&sentBody)
    }
}

let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, version, uploadData, uploadSize, requestContext in
    guard let connection, let requestContext, let uploadSize else { return .NO }
    let server = server(context)
    if requestContext.pointee == nil {
        // Already answered from the error log (HTTPServer+EarlyAnswers.swift):
        // nothing more is written, and libmicrohttpd closes the connection.
        if entry(of: connection)?.answeredEarly == true { return .NO }
        let state = RequestState(answerStorage: server.answerStorage)
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        var screening = RequestScreen.Screening()
        let refusal = screen(connection, method: method, url: url, version: version,
                             memory: server.limits.connectionMemory, into: &screening, trailerRoom: &state.trailerRoom)
        state.authorization = screening.authorization
        if let refusal {
            state.started = true
            entry(of: connection)?.answering()
            server.handler.answered(path: path(of: url), refusal)
            return queue(refusal, on: connection, lending: state, closing: server)
        }
        // A client that waits for 100 Continue before sending its body is
        // refused (auth, method, route) before it uploads anything.
        if screening.expects,
           let early = server.handler.respondBeforeBody(request(connection, url: url, method: method, state: state)) {
            state.started = true
            entry(of: connection)?.answering()
            return queue(early, on: connection, lending: state, closing: server)
        }
        if let length = screening.announcedLength, length > server.limits.maximumBodyBytes {
            // Answered now, before the body: libmicrohttpd then closes the
            // connection instead of reading what was announced.
            state.tooLarge = true
            state.started = true
            entry(of: connection)?.answering()
            let request = request(connection, url: url, method: method, state: state)
            let response = server.handler.respondImmediately(request)
                ?? HTTPResponse(status: 413, body: EventError(.bodyTooLarge, field: nil,
                                                              "the body is larger than \(server.limits.maximumBodyBytes) bytes").jsonBody)
            return queue(response, on: connection, lending: state, closing: server)
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
        return queue(response, on: connection, lending: state, closing: server)
    }
    guard !state.started else { return .YES }
    state.started = true
    // Trailers arrive with the body's end, after the headers were screened:
    // they must leave room for the answer too, or it could not be written
    // after the handler had sent the notifications.
    if let room = state.trailerRoom, trailerBytes(connection) > room {
        let refusal = RequestScreen.headersTooLarge(room: room)
        entry(of: connection)?.answering()
        server.handler.answered(path: path(of: url), refusal)
        return queue(refusal, on: connection, lending: state, closing: server)
    }
    let request = takeRequest(connection, url: url, method: method, state: state)
    entry(of: connection)?.answering()
    // Called where the server holds it: a copy of the existential (made
    // below, for the task) cost a copy and a destroy on every request.
    if let response = server.handler.respondImmediately(request) {
        return queue(response, on: connection, lending: state, closing: server)
    }
    let handler = server.handler
    let reply = HTTPReply(connection: SuspendedConnection(pointer: connection), state: state, server: server, path: request.path)
    guard server.suspended.add(reply) else {
        handler.answered(path: request.path, HTTPServer.shuttingDown)
        return queue(HTTPServer.shuttingDown, on: connection, lending: state, closing: server)
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

/// `RequestScreen` on this request's headers and target.
///
/// The target is intact when the length seen by the URI log callback (up to
/// the first NUL) reaches the space before the HTTP version: libmicrohttpd
/// parses the request line in place, so `url` and `version` point into it.
///
/// The lines are where CRLF-ended lines would be: libmicrohttpd parses the
/// head in place, turning each line's CR and LF into NULs, so each header's
/// name starts two bytes after the previous line's last byte (the version,
/// then each value), and the head (whose size libmicrohttpd reports) ends
/// four bytes after the last one. A bare LF leaves one byte, a folded line
/// moves the name elsewhere (libmicrohttpd joins it to the name), and a NUL
/// inside a value ends it early: each breaks the chain (`LineWalk`).
///
/// Fills the caller's `screening` (a screen returned by value was copied
/// out, its authorization string retained, and the original destroyed).
///
/// The headers must leave room in the connection's `memory` for the
/// request line and the answer's header (`RequestScreen.answerHeaderRoom`).
private func screen(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                    version: UnsafePointer<CChar>?, memory: Int,
                    into screening: inout RequestScreen.Screening, trailerRoom: inout Int?) -> HTTPResponse? {
    var intact = true
    let target = entry(of: connection)?.targetLength
    var lineStart: UnsafeRawPointer?
    if let url, let version, version.pointee != 0 {
        if let target { intact = url + target + 1 == version }
        lineStart = UnsafeRawPointer(version) + strlen(version) + 2
    }
    withUnsafeMutablePointer(to: &screening) { pointer in
        var walk = LineWalk(screening: pointer, next: lineStart)
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, screenHeader, &walk)
        let headSize = pushgw_mhd_connection_header_size(connection)
        if let method, let next = walk.next, headSize > 0, next + 2 != UnsafeRawPointer(method) + headSize {
            pointer.pointee.noteMisplacedLine()
        }
    }
    let hostRequired = version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
    let http10 = version.map { strcmp($0, "HTTP/1.0") == 0 } ?? false
    let requestLine = (method.map { strlen($0) } ?? 0) + (target ?? url.map { strlen($0) } ?? 0)
        + (version.map { strlen($0) } ?? 0) + 4
    let headerRoom = memory - RequestScreen.answerHeaderRoom - requestLine
    if screening.isChunked { trailerRoom = headerRoom - screening.headerBytes }
    return screening.refusal(targetIntact: intact, hostRequired: hostRequired, http10: http10, headerRoom: headerRoom)
}

/// The room a chunked body's trailers take in the connection's memory,
/// counted as the screen counts headers.
private func trailerBytes(_ connection: OpaquePointer) -> Int {
    var total = 0
    _ = withUnsafeMutablePointer(to: &total) { pointer in
        MHD_get_connection_values_n(connection, .FOOTER_KIND, countTrailer, pointer)
    }
    return total
}

private let countTrailer: MHD_KeyValueIteratorN = { context, _, _, keySize, _, valueSize in
    context!.assumingMemoryBound(to: Int.self).pointee += keySize + valueSize + RequestScreen.headerEntryBytes
    return .YES
}

/// The headers' walk through the head: the screen fed, and where the next
/// line must start (nil: not checked, the request line was not in place).
private struct LineWalk {
    let screening: UnsafeMutablePointer<RequestScreen.Screening>
    var next: UnsafeRawPointer?
}

/// Feeds one header, with the lengths libmicrohttpd reports (a CR inside
/// is kept; a NUL ends the value), to the screen of the `LineWalk` passed
/// as the context, without copying it, and checks that its line starts
/// where the previous one's CRLF ended.
private let screenHeader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    let walk = context!.assumingMemoryBound(to: LineWalk.self)
    walk.pointee.screening.pointee.add(name: UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize),
                                       value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
    if let next = walk.pointee.next {
        if let key, let value, UnsafeRawPointer(key) == next {
            walk.pointee.next = UnsafeRawPointer(value) + valueSize + 2
        } else {
            walk.pointee.screening.pointee.noteMisplacedLine()
            walk.pointee.next = nil
        }
    }
    return .YES
}

/// The request as the handler sees it: method, path, the headers it reads, the body so far.
private func request(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                     state: RequestState) -> HTTPRequest {
    HTTPRequest(method: name(of: method), path: path(of: url), authorization: state.authorization,
                body: state.body, bodyTooLarge: state.tooLarge, mode: mode(of: connection))
}

/// The query's `mode` argument, percent-decoded by libmicrohttpd; nil when not sent.
private func mode(of connection: OpaquePointer) -> String? {
    MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "mode").map { String(cString: $0) }
}

/// `request(url:method:state:)` for the request's last call: the body and
/// the authorization are moved out of `state`, which needs them no more
/// (copied, each was retained, then released when `state` went).
private func takeRequest(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                         state: RequestState) -> HTTPRequest {
    var body: [UInt8] = []
    swap(&body, &state.body)
    var authorization: String?
    swap(&authorization, &state.authorization)
    return HTTPRequest(method: name(of: method), path: path(of: url), authorization: authorization,
                       body: body, bodyTooLarge: state.tooLarge, mode: mode(of: connection))
}

/// The request's method; the usual ones as literals (a string made from
/// the C string was measured and validated on every request).
private func name(of method: UnsafePointer<CChar>?) -> String {
    guard let method else { return "GET" }
    if strcmp(method, "POST") == 0 { return "POST" }
    if strcmp(method, "GET") == 0 { return "GET" }
    if strcmp(method, "HEAD") == 0 { return "HEAD" }
    return String(cString: method)
}

/// The router's path of the request target (`RequestTarget.path`).
private func path(of url: UnsafePointer<CChar>?) -> String {
    guard let url else { return "/" }
    return RequestTarget.path(UnsafeBufferPointer(start: UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self), count: strlen(url)))
}

/// Queues `response` on `connection`; once `server` quiesces, with
/// `Connection: close` (libmicrohttpd then closes after sending it).
///
/// The body is lent, not copied: `state` keeps the array (never changed
/// after this) and is retained for the response, until libmicrohttpd
/// destroys it and calls `releaseLentBody`. A copy made by libmicrohttpd
/// (`RESPMEM_MUST_COPY`) cost a malloc, a memcpy and a free per answer.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, lending state: RequestState,
                   closing server: HTTPServer) -> MHD_Result {
    state.sentBody = response.body
    let owner = Unmanaged.passRetained(state).toOpaque()
    // The pointer outlives the closure: the array's storage stays where it
    // is while `state.sentBody` holds it unchanged (see above).
    let handle = state.sentBody.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer_with_free_callback_cls(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), releaseLentBody, owner)
    }
    guard let handle else {
        Unmanaged<RequestState>.fromOpaque(owner).release()  // no response, so no callback
        return .NO
    }
    defer { MHD_destroy_response(handle) }
    // A literal or native string's own NUL-terminated bytes (passed as a
    // `String` argument, it was copied into a new array first).
    _ = response.contentType.withCString { MHD_add_response_header(handle, "Content-Type", $0) }
    _ = MHD_add_response_header(handle, "Cache-Control", "no-store")
    for field in response.headers { _ = MHD_add_response_header(handle, field.name, field.value) }
    if server.closing.load(ordering: .relaxed) { _ = MHD_add_response_header(handle, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(response.status), handle)
}

/// libmicrohttpd destroyed a response whose body `queue` lent: the
/// `RequestState` holding it is released (on the daemon's thread).
private let releaseLentBody: MHD_ContentReaderFreeCallback = { owner in
    guard let owner else { return }
    Unmanaged<RequestState>.fromOpaque(owner).release()
}
