#if canImport(Glibc)
import Glibc
#endif
internal import CNGHTTP2
internal import CNGHTTP2Shims
import Synchronization
import PushGWSync

/// The nghttp2 client session: its creation (settings, callbacks, the
/// fixed pseudo headers) and the C callbacks, which run on the loop thread
/// inside its calls into the session, with what they hand to the connection.
extension HTTP2Connection {
    func startSession() throws(TransportError) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeaderCallback)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunkCallback)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamCloseCallback)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceivedCallback)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSentCallback)
        // The session's memory comes from a pool of its own (nghttp2 copies
        // `mem`): a stream's blocks are reused by the next streams instead of
        // going through malloc each time. Without a pool (no memory for
        // it), nghttp2's own allocator.
        // Until the server's SETTINGS arrive, one stream at a time (nghttp2
        // assumes 100): APNs allows one until a request carries a valid
        // token, and answered more with GOAWAY (PROTOCOLS.md A6).
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw TransportError(.protocolError, "nghttp2_option_new: out of memory")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_peer_max_concurrent_streams(option, options.streamsBeforeSettings)
        let pool = pgw_h2_pool_new()
        let context = Unmanaged.passUnretained(self).toOpaque()
        var session: OpaquePointer?
        let status: Int32
        if let pool {
            var mem = pgw_h2_pool_mem(pool)
            status = nghttp2_session_client_new3(&session, callbacks, context, option, &mem)
        } else {
            status = nghttp2_session_client_new2(&session, callbacks, context, option)
        }
        guard status == 0, let session else {
            pgw_h2_pool_free(pool)
            throw TransportError(.protocolError, nghttp2Message("nghttp2_session_client_new", status))
        }
        self.session = session
        sessionMemory = pool
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // Its round trip sets how long bodies wait for the window (`BodyFlowControl.waitLimit`).
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        pingSentAt = ContinuousClock.now
    }

    // MARK: nghttp2 callbacks (on the loop thread)

    /// The stream nghttp2 keeps for `streamID` (the pointer given to
    /// `nghttp2_submit_request`): no dictionary lookup per header or chunk.
    /// Valid while the stream is in `inFlight`, which holds it; nghttp2 calls
    /// back for a stream only until its close callback.
    private func pendingStream(_ streamID: Int32) -> PendingStream? {
        guard let session, let pointer = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<PendingStream>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// A response header: `:status` and the kept headers go to their
    /// stream, found only then (a header not kept costs no lookup).
    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if Self.bytes(name, equal: ":status") {
            guard let stream = pendingStream(streamID) else { return }
            var status = 0
            for digit in value where digit >= 0x30 && digit <= 0x39 { status = status * 10 + Int(digit - 0x30) }
            stream.status = status
        } else if keptHeaderLengths & 1 << UInt64(min(name.count, 63)) != 0,
                  keptHeaderBytes?.contains(where: { Self.bytes(name, equal: $0) }) ?? true {
            guard let stream = pendingStream(streamID) else { return }
            let header = stream.requestHeader(repeatedBy: name, value)
                ?? HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            stream.appendHeader(header)
        }
    }

    /// Byte equality, lengths first (most names differ in length): no
    /// generic sequence walk per response header.
    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        return other.withUnsafeBufferPointer { other in bytes.count == 0 || memcmp(bytes.baseAddress!, other.baseAddress!, bytes.count) == 0 }
    }

    /// As above, with a name from the program's constant bytes.
    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal other: StaticString) -> Bool {
        bytes.count == other.utf8CodeUnitCount && (bytes.count == 0 || memcmp(bytes.baseAddress!, other.utf8Start, bytes.count) == 0)
    }

    fileprivate func data(streamID: Int32, chunk: UnsafeBufferPointer<UInt8>) {
        guard let stream = pendingStream(streamID) else { return }
        let limit = options.maximumResponseBody
        stream.appendBody(chunk, limit: limit)
    }

    /// A stream ended: a complete response, a refusal (not processed: safe to
    /// re-send), or a reset. A stream that already ended by timeout only
    /// gives back its load slot (`finish` ignores a second result).
    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        // nghttp2 still has the stream (and its user data) during this callback.
        // The table's reference is taken over, the lookup's let go: `recycle`
        // then finds the stream held by nothing else.
        guard var stream = pendingStream(streamID).flatMap({ removeInFlight($0) }) else { return }
        defer { recycle(&stream) }
        switch (stream.status, errorCode) {
        case let (status?, NGHTTP2_NO_ERROR.rawValue):
            if !answeredAny {
                answeredAny = true
                answeredFlag.store(true, ordering: .relaxed)
            }
            let response = stream.takeResponse(status: status)
            // A stream that timed out already failed: its late answer is not timed.
            if let timesAnswer, !stream.finished {
                timesAnswer(ContinuousClock.now - PendingStream.origin - stream.startedSinceOrigin)
            }
            if status != 200, let retires = retiresConnection, retires(response) { shutdown() }
            complete(stream, .success(response))
        case (nil, NGHTTP2_REFUSED_STREAM.rawValue):
            complete(stream, .failure(TransportError(.refused, "stream \(streamID) refused by \(host) (not processed)")))
        default:
            let name = String(cString: nghttp2_http2_strerror(errorCode))
            complete(stream, .failure(TransportError(.connectionLost, "stream \(streamID) reset by \(host): \(name)")))
        }
    }

    fileprivate func frameReceived(goaway: Bool, lastStreamID: Int32 = 0, debug: String?, pingAck: Bool) {
        if goaway {
            let action = lifecycle.goawayReceived(from: host, debug: debug, lastStreamID: lastStreamID)
            inbox.withLock { state in
                state.closeReason = TransportError(.refused, "GOAWAY from \(host)\(debug.map { ": \($0)" } ?? "")")
            }
            apply(action)
        }
        if pingAck {
            if let sent = pingSentAt { flow.roundTrip = ContinuousClock.now - sent }
            pingSentAt = nil
        }
    }

    /// A DATA frame of the stream's body was sent.
    fileprivate func bodyFrameSent(streamID: Int32, byteCount: Int) {
        guard let stream = pendingStream(streamID) else { return }
        inFlight.bodySent(byteCount, by: stream)
    }

    /// nghttp2 asks for the body of a stream that would be cut by the
    /// window: whether it waits for the window instead.
    fileprivate func defersBody(of streamID: Int32, window: Int) -> Bool {
        // The clock is read only for a body that waits.
        !flow.cutsAtWindowEdge && flow.defers(streamID, waitsForWindow: true, window: window, now: ContinuousClock.now)
    }

    /// Hands the waiting bodies back to nghttp2 in the order they waited,
    /// once the server has widened the window (`BodyFlowControl.resumable`):
    /// before any stream opens or any frame is written, so that they keep
    /// their place ahead of later requests. One that still does not fit
    /// waits again.
    func resumeDeferredBodies() {
        guard let session, !flow.deferred.isEmpty else { return }
        resume(flow.resumable(window: Int(nghttp2_session_get_remote_window_size(session))), session)
    }

    /// Resumes the bodies of `streams`; returns how many were still open
    /// to take them back (a stream closed meanwhile is refused).
    @discardableResult
    func resume(_ streams: [Int32], _ session: OpaquePointer) -> Int {
        guard !streams.isEmpty else { return 0 }
        var resumed = 0
        for streamID in streams where nghttp2_session_resume_data(session, streamID) == 0 { resumed += 1 }
        flow.reuse(streams)
        return resumed
    }

    /// Carries out what the lifecycle decided.
    func apply(_ action: ConnectionLifecycle.Action) {
        switch action {
        case .none, .close:
            break
        case let .stopAccepting(error):
            accepting.store(false, ordering: .relaxed)
            failWaiting(error)
        }
    }

}

func nghttp2Message(_ call: String, _ code: Int32) -> String {
    "\(call) failed: \(String(cString: nghttp2_strerror(code)))"
}

/// The connection a callback is for: the session's user data is the
/// connection, which outlives its session.
private func withConnection<Result>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Connection) -> Result) -> Result {
    body(Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue())
}

private let onHeaderCallback: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let name, let value else { return 0 }
    withConnection(userData) {
        $0.header(streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                  value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private let onDataChunkCallback: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    guard let data else { return 0 }
    withConnection(userData) { $0.data(streamID: streamID, chunk: UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onStreamCloseCallback: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    withConnection(userData) { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
    return 0
}

/// nghttp2 counts a DATA frame against the flow-control windows once it is
/// sent, which is when this is called: the stream's unsent body is counted
/// down here, in step with the window it is compared with.
private let onFrameSentCallback: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
    withConnection(userData) { $0.bodyFrameSent(streamID: frame.pointee.hd.stream_id, byteCount: frame.pointee.hd.length) }
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
        withConnection(userData) { $0.frameReceived(goaway: true, lastStreamID: goaway.last_stream_id, debug: debug, pingAck: false) }
    } else if type == UInt8(NGHTTP2_WINDOW_UPDATE.rawValue), frame.pointee.hd.stream_id == 0 {
        withConnection(userData) { $0.flow.windowUpdated() }
    } else if type == UInt8(NGHTTP2_PING.rawValue), frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
        withConnection(userData) { $0.frameReceived(goaway: false, debug: nil, pingAck: true) }
    }
    return 0
}

/// The source is the stream (held by the connection's in-flight table
/// while nghttp2 may read its body).
let readBodyCallback: nghttp2_data_source_read_callback = { session, streamID, buffer, length, flags, source, userData in
    guard let session, let buffer, let source, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let stream = Unmanaged<PendingStream>.fromOpaque(source.pointee.ptr).takeUnretainedValue()
    let window = Int(nghttp2_session_get_remote_window_size(session))
    // The connection is asked only about a body that would be cut.
    if stream.waitsForWindow(capacity: length, connectionWindow: window),
       withConnection(userData, { $0.defersBody(of: streamID, window: window) }) {
        return Int(NGHTTP2_ERR_DEFERRED.rawValue)
    }
    let (count, done) = stream.nextBodyChunk(into: buffer, capacity: length)
    if done { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
