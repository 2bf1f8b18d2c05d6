import Foundation

/// One request's life inside a connection: where its result goes, the
/// header bytes and body handed to nghttp2, and the response as it arrives.
///
/// `@unchecked Sendable`: created (or taken from the connection's spares) by
/// the sending task under the connection's inbox mutex, then handed through
/// that inbox to the event-loop thread, which alone touches it from then on
/// (nghttp2 callbacks run on that thread). Its result is delivered exactly
/// once, guarded by `finished`. Once nghttp2 has closed its stream and its
/// result is delivered, the loop thread may take it back (`recycle`) when
/// nothing else holds it, and hands it back through the same mutex for
/// another request (`reuse`). The batch it holds by hand (`heldBatch`)
/// goes the same way: set by the sender, let go by the loop thread or the
/// last owner, one thread at a time.
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
    /// The batch, held by hand: retained when set (`init`, `reuse`) and
    /// released when let go (`recycle`, `deinit`), so that reading it
    /// (`withBatch`: the body, the request, the result) costs no retain and
    /// release each time, as a strong property's reads did. nil only while
    /// recycled (between `recycle` and `reuse`).
    private var heldBatch: Unmanaged<BatchCompletion>?
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

    /// The bytes of the header values that are this stream's own (`:path`,
    /// `apns-id`…), and the prototype that holds the others: nghttp2 reads
    /// both, without copying them, until it closes the stream. The arena
    /// stays with the object when it is reused.
    private var arena: UnsafeMutableRawPointer?
    private var arenaCapacity = 0
    var headerPrototype: HeaderBlockPrototype?

    /// `startedAt` + the request's timeout is its deadline.
    convenience init(batch: BatchCompletion, index: Int, startedAt: ContinuousClock.Instant) {
        self.init(batch: batch, index: index, startedSinceOrigin: startedAt - Self.origin)
    }

    /// As `init(batch:index:startedAt:)`, with `startedAt - origin` worked
    /// out once for a whole batch.
    init(batch: BatchCompletion, index: Int, startedSinceOrigin: Duration) {
        heldBatch = .passRetained(batch)
        self.index = index
        self.startedSinceOrigin = startedSinceOrigin
        deadlineSinceOrigin = startedSinceOrigin + batch.requests.timeout(index)
        bodyCount = batch.requests.parts(index).body.pointee.count
    }

    /// A stream taken back by its connection (`recycle`) set up for another
    /// request, as `init` would.
    func reuse(batch: BatchCompletion, index: Int, startedSinceOrigin: Duration) {
        // The new one taken before the old is let go (should they be the same).
        let previous = heldBatch
        heldBatch = .passRetained(batch)
        previous?.release()
        self.index = index
        self.startedSinceOrigin = startedSinceOrigin
        deadlineSinceOrigin = startedSinceOrigin + batch.requests.timeout(index)
        bodyCount = batch.requests.parts(index).body.pointee.count
    }

    /// Forgets the request of a stream that nghttp2 has closed and whose
    /// result is delivered, for its connection to keep it for another: the
    /// batch (with its requests) and the header prototype are let go, the
    /// response parts emptied; the arena is kept, to be written over.
    func recycle() {
        heldBatch?.release()
        heldBatch = nil
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
        headerPrototype = nil
    }

    /// The request's timeout (for messages).
    var timeout: Duration { withBatch { $0.requests.timeout(index) } }

    /// The size of the request's body. Noted when the stream is set up,
    /// where the batch is at hand, not read through it (a retain and a
    /// release) when the stream is submitted.
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
    /// every other (see `HTTP2Connection.bodyFitsWindow`).
    func waitsForWindow(capacity: Int, connectionWindow: Int) -> Bool {
        bodyOffset == 0 && capacity < bodyCount && connectionWindow < bodyCount && bodyCount <= Self.wholeFrameBody
    }

    /// The largest DATA frame payload every HTTP/2 peer takes (the least
    /// SETTINGS_MAX_FRAME_SIZE, RFC 9113 §6.5.2).
    static let wholeFrameBody = 16_384

    /// Copies the next part of the body, up to `capacity` bytes, into
    /// `buffer`; returns the count and whether the body is now all sent.
    func nextBodyChunk(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (count: Int, done: Bool) {
        let body = request.bodyBytes
        let count = min(body.count - bodyOffset, capacity)
        if count > 0 { buffer.update(from: body.baseAddress! + bodyOffset, count: count) }
        bodyOffset += count
        return (count, bodyOffset == body.count)
    }

    deinit {
        heldBatch?.release()
        free(arena)
    }

    /// Calls `body` with the batch, which this stream holds (no retain of
    /// its own for the call).
    private func withBatch<Result>(_ body: (BatchCompletion) -> Result) -> Result {
        heldBatch!._withUnsafeGuaranteedRef(body)
    }

    /// The request's parts where they are, in its batch: no copy, no
    /// retain of them. Valid while the stream holds the batch.
    var request: RequestParts { withBatch { $0.requests.parts(index) } }

    /// This stream's own room for header values, at least `byteCount` bytes,
    /// for as long as nghttp2 may read them (until it closes the stream).
    /// When it grows, the bytes it held move with it (`realloc`); a reused
    /// stream writes over the room it had.
    func arena(atLeast byteCount: Int) -> UnsafeMutablePointer<UInt8> {
        // (No room yet, even for 0 bytes: an empty path still needs a pointer.)
        if byteCount > arenaCapacity || arena == nil {
            // Room for an APNs path and `apns-id` at least, so that a reused
            // stream seldom needs more.
            let capacity = max(byteCount, 2 * arenaCapacity, 128)
            guard let room = realloc(arena, capacity) else { fatalError("out of memory for \(capacity) bytes of header values") }
            arena = room
            arenaCapacity = capacity
        }
        return arena!.assumingMemoryBound(to: UInt8.self)
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
    /// shares the request's strings instead of allocating new ones. Header
    /// strings are read in place, lengths first.
    func requestHeader(repeatedBy name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> HTTPHeader? {
        request.headers.pointee.withUnsafeBufferPointer { headers in
            for index in headers.indices where headers[index].value.utf8.count == value.count
                && headers[index].name.utf8.count == name.count
                && Self.utf8(of: headers[index].value, equals: value) && Self.utf8(of: headers[index].name, equals: name) {
                return headers[index]
            }
            return nil
        }
    }

    /// Whether `text`'s UTF-8 is `bytes` (false, not a copy, for a string
    /// whose bytes are not contiguous in memory).
    private static func utf8(of text: String, equals bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        } ?? false
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
        // Taken out of an optional inside the closure: moved, not copied.
        var pending: Result<HTTP2Response, TransportError>? = consume result
        withBatch { batch in batch.complete(index, pending.take()!) }
    }
}
