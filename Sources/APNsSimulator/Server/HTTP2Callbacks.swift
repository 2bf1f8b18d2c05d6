import CNGHTTP2

// nghttp2 server callbacks. File-level constants, as C callbacks must be;
// the context is the `ServerConnection` passed unretained as user data
// (it owns the session, so it outlives every callback). Returning 0 keeps
// the session going.

private func connection(_ userData: UnsafeMutableRawPointer?) -> ServerConnection {
    Unmanaged<ServerConnection>.fromOpaque(userData!).takeUnretainedValue()
}

private func isRequestHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
    frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
        && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
}

/// A new request stream begins.
let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame, isRequestHeaders(frame) else { return 0 }
    connection(userData).beginRequest(streamID: frame.pointee.hd.stream_id)
    return 0
}

/// One request header field (trailers are ignored). A field past the
/// connection's limit resets the stream: nghttp2 answers
/// `NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE` with RST_STREAM (INTERNAL_ERROR)
/// and delivers nothing more of it.
let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, flags, userData in
    guard let frame, let name, let value, isRequestHeaders(frame) else { return 0 }
    let kept = connection(userData).receiveHeader(
        streamID: frame.pointee.hd.stream_id,
        name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength),
        // HPACK "literal never indexed" (RFC 7541 §6.2.3), as nghttp2 reports it.
        neverIndexed: flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0
    )
    return kept ? 0 : Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
}

/// A chunk of request body.
let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    guard let data else { return 0 }
    connection(userData).receiveBody(streamID: streamID, chunk: UnsafeBufferPointer(start: data, count: length))
    return 0
}

/// A whole frame arrived: a request's HEADERS ends its header block;
/// END_STREAM on HEADERS or DATA completes a request; DATA counts against
/// the window where it is widened by hand.
let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    if isRequestHeaders(frame) {
        connection(userData).endHeaders(streamID: frame.pointee.hd.stream_id)
    }
    let type = frame.pointee.hd.type
    if type == UInt8(NGHTTP2_DATA.rawValue) { connection(userData).dataReceived(length: frame.pointee.hd.length) }
    let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if endsStream, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) {
        connection(userData).completeRequest(streamID: frame.pointee.hd.stream_id)
    }
    return 0
}

/// A frame nghttp2 refused. A request stream beyond the advertised limit,
/// before the client acknowledged it, is refused alone by nghttp2; the
/// connection decides whether that ends the connection instead.
let onInvalidFrame: nghttp2_on_invalid_frame_recv_callback = { _, frame, libErrorCode, userData in
    guard let frame, libErrorCode == NGHTTP2_ERR_REFUSED_STREAM.rawValue, isRequestHeaders(frame) else { return 0 }
    connection(userData).streamLimitExceeded(streamID: frame.pointee.hd.stream_id)
    return 0
}

/// A stream closed (answered, reset by the peer, or refused).
let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
    connection(userData).streamClosed(streamID: streamID)
    return 0
}

/// Copies the response body of a stream into nghttp2's frame buffer.
let readResponseBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let copied = connection(userData).readResponseBody(streamID: streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length))
    if copied.finished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return copied.count
}
