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
        arena?.deallocate()
    }

    /// Builds the header block: `fixed` pseudo headers shared by the
    /// connection (not copied: nghttp2 is told so), then `:method`, `:path`,
    /// `authorization` and the request's headers, copied once into one
    /// allocation that also holds the name/value array. Headers named in
    /// `unindexed` (names as bytes) are sent never indexed.
    func buildHeaderBlock(fixed: UnsafeBufferPointer<nghttp2_nv>, unindexed: [[UInt8]]) -> UnsafeMutableBufferPointer<nghttp2_nv> {
        // The request is read where it is, in its batch: no copy, no retain of its parts.
        batch.requests.withUnsafeBufferPointer { requests in
            buildHeaderBlock(for: requests[index], fixed: fixed, unindexed: unindexed)
        }
    }

    private func buildHeaderBlock(for request: HTTP2Request, fixed: UnsafeBufferPointer<nghttp2_nv>,
                                  unindexed: [[UInt8]]) -> UnsafeMutableBufferPointer<nghttp2_nv> {
        let count = fixed.count + 2 + (request.authorization == nil ? 0 : 1) + request.headers.count
        var textBytes = ":method".utf8.count + request.method.utf8.count + ":path".utf8.count + request.path.utf8.count
        if let authorization = request.authorization { textBytes += "authorization".utf8.count + authorization.utf8.count }
        for header in request.headers { textBytes += header.name.utf8.count + header.value.utf8.count }
        let entriesBytes = count * MemoryLayout<nghttp2_nv>.stride
        let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: entriesBytes + max(textBytes, 1),
                                                           alignment: MemoryLayout<nghttp2_nv>.alignment)
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
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        let neverIndexed = noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        var index = 0
        func add(_ name: String, _ value: String, flags: UInt8) {
            let (namePointer, nameLength) = copy(name)
            let (valuePointer, valueLength) = copy(value)
            block[index] = nghttp2_nv(name: namePointer, value: valuePointer, namelen: nameLength, valuelen: valueLength, flags: flags)
            index += 1
        }
        /// Whether the name just copied is one of `unindexed`: compared as
        /// bytes, without a String comparison per header.
        func isUnindexed(_ name: UnsafeMutablePointer<UInt8>, _ length: Int) -> Bool {
            unindexed.contains { candidate in
                candidate.count == length && candidate.withUnsafeBufferPointer { memcmp($0.baseAddress!, name, length) == 0 }
            }
        }
        add(":method", request.method, flags: noCopy)
        for entry in fixed {
            block[index] = entry
            index += 1
        }
        // APNs: `:path` and `authorization` are literals without indexing.
        add(":path", request.path, flags: neverIndexed)
        if let authorization = request.authorization { add("authorization", authorization, flags: neverIndexed) }
        for header in request.headers {
            let (namePointer, nameLength) = copy(header.name)
            let (valuePointer, valueLength) = copy(header.value)
            block[index] = nghttp2_nv(name: namePointer, value: valuePointer, namelen: nameLength, valuelen: valueLength,
                                      flags: isUnindexed(namePointer, nameLength) ? neverIndexed : noCopy)
            index += 1
        }
        return block
    }

    /// Delivers the result, once; later calls are ignored.
    func finish(_ result: Result<HTTP2Response, TransportError>) {
        guard !finished else { return }
        finished = true
        batch.complete(index, result)
    }
}
