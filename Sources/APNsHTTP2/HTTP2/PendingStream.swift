internal import CNGHTTP2
import Foundation

/// One request's life inside a connection: where its result goes, the
/// header block and body handed to nghttp2, and the response as it arrives.
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

    /// The name/value array followed by the header bytes it points into.
    private var arena: UnsafeMutableRawBufferPointer?
    private(set) var nameValues: UnsafeMutableBufferPointer<nghttp2_nv>?

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
        free(arena?.baseAddress)
    }

    /// Builds the header block: `fixed` pseudo headers shared by the
    /// connection (not copied: nghttp2 is told so), then `:method`, `:path`,
    /// `authorization` and the request's headers, copied once into one
    /// allocation that also holds the name/value array (the pseudo header
    /// names and `authorization` come from the program's constants). Headers
    /// named in `unindexed` (names as bytes) are sent never indexed.
    func buildHeaderBlock(fixed: UnsafeBufferPointer<nghttp2_nv>, unindexed: [[UInt8]]) -> UnsafeMutableBufferPointer<nghttp2_nv> {
        // The request is read where it is, in its batch: no copy, no retain of its parts.
        batch.requests.withUnsafeBufferPointer { requests in
            buildHeaderBlock(for: requests.baseAddress! + index, fixed: fixed, unindexed: unindexed)
        }
    }

    private func buildHeaderBlock(for request: UnsafePointer<HTTP2Request>, fixed: UnsafeBufferPointer<nghttp2_nv>,
                                  unindexed: [[UInt8]]) -> UnsafeMutableBufferPointer<nghttp2_nv> {
        request.pointee.headers.withUnsafeBufferPointer { headers in
            let authorization = request.pointee.authorization
            let count = fixed.count + 2 + (authorization == nil ? 0 : 1) + headers.count
            var textBytes = request.pointee.method.utf8.count + request.pointee.path.utf8.count + (authorization?.utf8.count ?? 0)
            for index in headers.indices { textBytes += headers[index].name.utf8.count + headers[index].value.utf8.count }
            let entriesBytes = count * MemoryLayout<nghttp2_nv>.stride
            // malloc (aligned for any type): `allocate(byteCount:alignment:)`
            // goes through posix_memalign on Linux, which costs far more.
            let arenaBytes = entriesBytes + max(textBytes, 1)
            guard let arenaBase = malloc(arenaBytes) else { fatalError("out of memory for a header block of \(arenaBytes) bytes") }
            let arena = UnsafeMutableRawBufferPointer(start: arenaBase, count: arenaBytes)
            self.arena = arena
            let block = UnsafeMutableBufferPointer(start: arena.baseAddress!.bindMemory(to: nghttp2_nv.self, capacity: count), count: count)
            nameValues = block
            var offset = entriesBytes
            func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
                let start = arena.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
                func place(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
                    if let base = utf8.baseAddress { start.update(from: base, count: utf8.count) }
                    return utf8.count
                }
                // Native strings are read where they are (a `var` copy to call
                // `withUTF8` retained and released each one); others are made native.
                let length: Int
                if let placed = text.utf8.withContiguousStorageIfAvailable(place) {
                    length = placed
                } else {
                    var text = text
                    length = text.withUTF8(place)
                }
                offset += length
                return (start, length)
            }
            func entry(_ name: (UnsafeMutablePointer<UInt8>, Int), _ value: (UnsafeMutablePointer<UInt8>, Int), _ flags: UInt8) -> nghttp2_nv {
                nghttp2_nv(name: name.0, value: value.0, namelen: name.1, valuelen: value.1, flags: flags)
            }
            let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
            let neverIndexed = noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
            /// Whether the name just copied is one of `unindexed`: compared as
            /// bytes, lengths first, without a String comparison per header.
            func isUnindexed(_ name: (UnsafeMutablePointer<UInt8>, Int)) -> Bool {
                unindexed.contains { candidate in
                    candidate.count == name.1 && candidate.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.0, name.1) == 0 }
                }
            }
            var position = 0
            block[position] = entry(Self.constant(":method"), copy(request.pointee.method), noCopy)
            position += 1
            for fixedEntry in fixed {
                block[position] = fixedEntry
                position += 1
            }
            // APNs: `:path` and `authorization` are literals without indexing.
            block[position] = entry(Self.constant(":path"), copy(request.pointee.path), neverIndexed)
            position += 1
            if let authorization {
                block[position] = entry(Self.constant("authorization"), copy(authorization), neverIndexed)
                position += 1
            }
            for index in headers.indices {
                let name = copy(headers[index].name)
                block[position] = entry(name, copy(headers[index].value), isUnindexed(name) ? neverIndexed : noCopy)
                position += 1
            }
            return block
        }
    }

    /// A header name from the program's constant bytes (nghttp2 only reads them).
    private static func constant(_ text: StaticString) -> (UnsafeMutablePointer<UInt8>, Int) {
        (UnsafeMutablePointer(mutating: text.utf8Start), text.utf8CodeUnitCount)
    }

    /// Adds a chunk of the response body, keeping at most `limit` bytes in
    /// all. The first chunk (usually the only one) becomes the body in one
    /// allocation of its size, rather than growing an empty array.
    func appendBody(_ chunk: UnsafeBufferPointer<UInt8>, limit: Int) {
        let room = limit - responseBody.count
        guard room > 0, !chunk.isEmpty else { return }
        let part = UnsafeBufferPointer(rebasing: chunk.prefix(room))
        if responseBody.isEmpty {
            responseBody = Array(part)
        } else {
            responseBody.append(contentsOf: part)
        }
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
