import CNGHTTP2

/// Owns one nghttp2 *server* session and frees it in `deinit`.
///
/// The session calls back into the `ServerConnection` whose unretained
/// pointer is its user data; the connection owns this object, so the
/// pointer is valid for the session's whole life. Thread-confined.
final class HTTP2ServerSession {
    let pointer: OpaquePointer

    /// - Parameter windowByHand: the connection's window is widened only
    ///   by `consume(connectionBytes:)` (nghttp2's automatic WINDOW_UPDATE off).
    init(userData: UnsafeMutableRawPointer, windowByHand: Bool = false) throws(APNsSimulatorError) {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw APNsSimulatorError(operation: "nghttp2_session_callbacks_new", detail: "out of memory")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, onInvalidFrame)
        var session: OpaquePointer?
        var option: OpaquePointer?
        if windowByHand {
            guard nghttp2_option_new(&option) == 0, let option else {
                throw APNsSimulatorError(operation: "nghttp2_option_new", detail: "out of memory")
            }
            nghttp2_option_set_no_auto_window_update(option, 1)
        }
        defer { nghttp2_option_del(option) }
        let result = nghttp2_session_server_new2(&session, callbacks, userData, option)
        guard result == 0, let session else { throw NGHTTP2Failure.error("nghttp2_session_server_new", result) }
        pointer = session
    }

    deinit { nghttp2_session_del(pointer) }

    /// Counts `byteCount` bytes of the connection's DATA as read: nghttp2
    /// then widens the window by all that was counted (with `windowByHand`).
    func consume(connectionBytes byteCount: Int) {
        _ = nghttp2_session_consume_connection(pointer, byteCount)
    }

    /// Queues a SETTINGS frame carrying SETTINGS_MAX_CONCURRENT_STREAMS.
    func submitMaxConcurrentStreams(_ limit: Int) {
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            value: UInt32(clamping: limit)
        )
        _ = nghttp2_submit_settings(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    /// Queues GOAWAY(NO_ERROR) with `lastStreamID` and the service's debug data.
    func submitGoAway(lastStreamID: Int32, debugData: [UInt8]) {
        _ = nghttp2_submit_goaway(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, NGHTTP2_NO_ERROR.rawValue, debugData, debugData.count)
    }

    /// Queues a response: `:status`, `headers`, and a body through the
    /// connection's data source when `hasBody`.
    func submitResponse(streamID: Int32, status: Int, headers extra: [(name: String, value: String)], hasBody: Bool) -> Bool {
        HeaderBlock.with(status: status, extra) { headers, count in
            if hasBody {
                var provider = nghttp2_data_provider()
                provider.read_callback = readResponseBody
                return nghttp2_submit_response(pointer, streamID, headers, count, &provider) == 0
            }
            return nghttp2_submit_response(pointer, streamID, headers, count, nil) == 0
        }
    }

    /// Whether the session still wants to read or write; when neither, the
    /// connection is finished.
    var isAlive: Bool {
        nghttp2_session_want_read(pointer) != 0 || nghttp2_session_want_write(pointer) != 0
    }

    /// Whether frames are waiting to be serialized.
    var wantsWrite: Bool { nghttp2_session_want_write(pointer) != 0 }
}
