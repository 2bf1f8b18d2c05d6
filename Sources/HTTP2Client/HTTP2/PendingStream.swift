import Foundation
internal import CNGHTTP2

/// One request's life inside a connection: its batch (where its bytes are
/// and where its result goes) and the response as it arrives.
///
/// `@unchecked Sendable`: created (or taken from the connection's spares) by
/// the sending task under the connection's inbox mutex, then handed through
/// that inbox to the event-loop thread, which alone touches it from then on
/// (nghttp2 callbacks run on that thread). Its result is delivered exactly
/// once, guarded by `finished`. Once nghttp2 has closed its stream and its
/// result is delivered, the loop thread may take it back (`recycle`) when
/// nothing else holds it, and hands it back through the same mutex for
/// another request (`reuse`). Its batch goes the same way: set by the
/// sender, let go by the loop thread or the last owner, one thread at a time.
final class PendingStream: @unchecked Sendable {
    /// The deadline, as the time since `origin`. A `Duration`, not an
    /// `Instant`: `Instant` is a resilient type whose copies go through the
    /// runtime, and with it reassigned on reuse every access to the property
    /// (one per waiting stream per timer check) was checked for exclusivity
    /// at run time; a `Duration` is a plain store.
    private(set) var deadlineSinceOrigin: Duration
    var deadline: ContinuousClock.Instant { Self.origin + deadlineSinceOrigin }
    /// When `send` took the request, as the time since `origin` (for
    /// `HTTP2ConnectionOptions.timesAnswer`).
    private(set) var startedSinceOrigin: Duration
    /// What `deadlineSinceOrigin` counts from.
    static let origin = ContinuousClock.now
    /// The batch, held until the stream is recycled or freed: nghttp2
    /// reads the request's bytes in it until it closes the stream. nil only
    /// while recycled (between `recycle` and `reuse`).
    private(set) var batch: BatchCompletion?
    private var index: Int
    private(set) var finished = false

    var streamID: Int32 = 0
    /// Its slot in the connection's `InFlightStreams` while open there, else -1.
    var slot = -1
    var status: Int?
    /// The response's headers (the first apart: an APNs answer keeps one,
    /// and an array of one is an allocation) and body as they arrive.
    private(set) var responseFirstHeader: HTTPHeader?
    private(set) var responseLaterHeaders: [HTTPHeader] = []
    private(set) var responseBody: [UInt8] = []
    var bodyOffset = 0

    /// `startedAt` + the request's timeout is its deadline.
    convenience init(batch: BatchCompletion, index: Int, startedAt: ContinuousClock.Instant) {
        self.init(batch: batch, index: index, startedSinceOrigin: startedAt - Self.origin)
    }

    /// As `init(batch:index:startedAt:)`, with `startedAt - origin` worked
    /// out once for a whole batch.
    init(batch: BatchCompletion, index: Int, startedSinceOrigin: Duration) {
        self.batch = batch
        self.index = index
        self.startedSinceOrigin = startedSinceOrigin
        deadlineSinceOrigin = startedSinceOrigin + batch.bytes.timeout(index)
        bodyCount = batch.bytes.bodyCount(index)
    }

    /// A stream taken back by its connection (`recycle`) set up for another
    /// request, as `init` would.
    func reuse(batch: BatchCompletion, index: Int, startedSinceOrigin: Duration) {
        self.batch = batch
        self.index = index
        self.startedSinceOrigin = startedSinceOrigin
        deadlineSinceOrigin = startedSinceOrigin + batch.bytes.timeout(index)
        bodyCount = batch.bytes.bodyCount(index)
    }

    /// Forgets the request of a stream that nghttp2 has closed and whose
    /// result is delivered, for its connection to keep it for another: the
    /// batch (with its requests) is let go, the response parts emptied.
    func recycle() {
        batch = nil
        index = 0
        finished = false
        streamID = 0
        slot = -1
        status = nil
        responseFirstHeader = nil
        responseLaterHeaders = []
        responseBody = []
        bodyOffset = 0
        bodyBytesSent = 0
    }

    /// The request's timeout (for messages).
    var timeout: Duration { batch!.bytes.timeout(index) }

    /// The size of the request's body, noted when the stream is set up.
    private(set) var bodyCount: Int

    /// The request has a body (a DATA frame follows its headers).
    var hasBody: Bool { bodyCount > 0 }

    /// Body bytes sent in DATA frames (`bodyOffset` is what nghttp2 has
    /// read, a frame ahead of what it has sent and counted against the
    /// connection's flow-control window).
    var bodyBytesSent = 0

    /// Body bytes not yet sent: what the stream still needs of the
    /// connection's flow-control window.
    var unsentBodyCount: Int { bodyCount - bodyBytesSent }

    /// Whether the body, none of it sent yet, waits for the connection's
    /// flow-control window to take it whole: it fits one DATA frame, and
    /// the window (`connectionWindow`) is what keeps nghttp2's `capacity`
    /// below it. Cut at the window's edge, the stream would be put behind
    /// every other (see `BodyFlowControl`).
    func waitsForWindow(capacity: Int, connectionWindow: Int) -> Bool {
        bodyOffset == 0 && capacity < bodyCount && connectionWindow < bodyCount && bodyCount <= Self.wholeFrameBody
    }

    /// The largest DATA frame payload every HTTP/2 peer takes (the least
    /// SETTINGS_MAX_FRAME_SIZE, RFC 9113 §6.5.2).
    static let wholeFrameBody = 16_384

    /// Copies the next part of the body, up to `capacity` bytes, into
    /// `buffer`; returns the count and whether the body is now all sent.
    func nextBodyChunk(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (count: Int, done: Bool) {
        let count = batch!.bytes.copyBody(index, from: bodyOffset, into: buffer, capacity: capacity)
        bodyOffset += count
        return (count, bodyOffset == bodyCount)
    }

    /// Submits the request to `session` (see `RequestBytes.submit`), with
    /// `userData` as the stream's user data and its body's source.
    func submit(to session: OpaquePointer, indexing: inout HeaderIndexing, reader: nghttp2_data_source_read_callback,
                userData: UnsafeMutableRawPointer) -> Int32 {
        batch!.bytes.submit(index, to: session, indexing: &indexing, reader: reader, stream: userData)
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

    /// Adds a response header (the later ones taken out and put back, as the body).
    /// `consuming`: the header moves in (its strings are not retained again).
    func appendHeader(_ header: consuming HTTPHeader) {
        guard responseFirstHeader != nil else {
            responseFirstHeader = consume header
            return
        }
        var headers: [HTTPHeader] = []
        swap(&headers, &responseLaterHeaders)
        headers.append(consume header)
        swap(&headers, &responseLaterHeaders)
    }

    /// The request's own header when a response header repeats it, name
    /// and value (APNs echoes the request's `apns-id`): the response then
    /// shares the request's strings instead of allocating new ones.
    func requestHeader(repeatedBy name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> HTTPHeader? {
        let batch = batch!
        return batch.bytes.headerPosition(index, name: name, value: value).map { batch.requests.header(index, at: $0) }
    }

    /// The complete response, its headers and body moved out of the stream
    /// (not shared with it: the stream is done with them).
    func takeResponse(status: Int) -> HTTP2Response {
        var first: HTTPHeader?
        var later: [HTTPHeader] = []
        var body: [UInt8] = []
        swap(&first, &responseFirstHeader)
        swap(&later, &responseLaterHeaders)
        swap(&body, &responseBody)
        return HTTP2Response(status: status, firstHeader: first, laterHeaders: later, body: body)
    }

    /// Delivers the result, once; later calls are ignored.
    func finish(_ result: consuming Result<HTTP2Response, TransportError>) {
        guard !finished else { return }
        finished = true
        batch!.complete(index, result)
    }
}
