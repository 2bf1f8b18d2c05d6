import Foundation

/// One request's life inside a connection: where its result goes, the
/// header bytes and body handed to nghttp2, and the response as it arrives.
///
/// `@unchecked Sendable`: created by the sending task, then handed through the
/// connection's mutex-protected inbox to the event-loop thread, which alone
/// touches it from then on (nghttp2 callbacks run on that thread). Its result
/// is delivered exactly once, guarded by `finished`.
final class PendingStream: @unchecked Sendable {
    let deadline: ContinuousClock.Instant
    private let batch: BatchCompletion
    private let index: Int
    private(set) var finished = false

    var streamID: Int32 = 0
    /// Its slot in the connection's `InFlightStreams` while open there, else -1.
    var slot = -1
    var status: Int?
    var responseHeaders: [HTTPHeader] = []
    var responseBody: [UInt8] = []
    var bodyOffset = 0

    /// The bytes of the header values that are this stream's own (`:path`,
    /// `apns-id`…), and the prototype that holds the others: nghttp2 reads
    /// both, without copying them, until the stream is gone.
    private var arena: UnsafeMutableRawPointer?
    var headerPrototype: HeaderBlockPrototype?

    /// `startedAt` + the request's timeout is its deadline.
    init(batch: BatchCompletion, index: Int, startedAt: ContinuousClock.Instant) {
        self.batch = batch
        self.index = index
        deadline = startedAt + batch.requests[index].timeout
    }

    /// The request's timeout (for messages).
    var timeout: Duration { batch.requests[index].timeout }

    /// The request has a body (a DATA frame follows its headers).
    var hasBody: Bool { !batch.requests[index].body.isEmpty }

    /// Copies the next part of the body, up to `capacity` bytes, into
    /// `buffer`; returns the count and whether the body is now all sent.
    func nextBodyChunk(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (count: Int, done: Bool) {
        batch.requests[index].body.withUnsafeBufferPointer { body in
            let count = min(body.count - bodyOffset, capacity)
            if count > 0 { buffer.update(from: body.baseAddress! + bodyOffset, count: count) }
            bodyOffset += count
            return (count, bodyOffset == body.count)
        }
    }

    deinit {
        free(arena)
    }

    /// Calls `body` with the request where it is, in its batch: no copy, no
    /// retain of its parts.
    func withRequest<Result>(_ body: (UnsafePointer<HTTP2Request>) -> Result) -> Result {
        batch.requests.withUnsafeBufferPointer { body($0.baseAddress! + index) }
    }

    /// Room for `byteCount` bytes of this stream's own header values, for as
    /// long as the stream lives (replacing any earlier room).
    func makeArena(byteCount: Int) -> UnsafeMutablePointer<UInt8> {
        free(arena)
        // malloc: `allocate(byteCount:alignment:)` goes through posix_memalign
        // on Linux, which costs far more.
        guard let room = malloc(max(byteCount, 1)) else { fatalError("out of memory for \(byteCount) bytes of header values") }
        arena = room
        return room.assumingMemoryBound(to: UInt8.self)
    }

    /// Adds a chunk of the response body, keeping at most `limit` bytes in all.
    func appendBody(_ chunk: UnsafeBufferPointer<UInt8>, limit: Int) {
        // Taken out and put back (as in `takeResponse`): no access to the
        // property spans a call, so the compiler checks none of them for
        // exclusivity at run time.
        var body: [UInt8] = []
        swap(&body, &responseBody)
        let room = limit - body.count
        if room > 0, !chunk.isEmpty {
            let part = UnsafeBufferPointer(rebasing: chunk.prefix(room))
            // The first chunk (usually the only one) becomes the body in one
            // allocation of its size (measured cheaper than appending it to
            // an empty array, or `Array(unsafeUninitializedCapacity:)`).
            if body.isEmpty {
                body = Array(part)
            } else {
                body.append(contentsOf: part)
            }
        }
        swap(&body, &responseBody)
    }

    /// Adds a response header (taken out and put back, as the body).
    func appendHeader(_ header: HTTPHeader) {
        var headers: [HTTPHeader] = []
        swap(&headers, &responseHeaders)
        headers.append(header)
        swap(&headers, &responseHeaders)
    }

    /// The complete response, its headers and body moved out of the stream
    /// (not shared with it: the stream is done with them).
    func takeResponse(status: Int) -> HTTP2Response {
        var headers: [HTTPHeader] = []
        var body: [UInt8] = []
        swap(&headers, &responseHeaders)
        swap(&body, &responseBody)
        return HTTP2Response(status: status, headers: headers, body: body)
    }

    /// Delivers the result, once; later calls are ignored.
    func finish(_ result: consuming Result<HTTP2Response, TransportError>) {
        guard !finished else { return }
        finished = true
        batch.complete(index, result)
    }
}
