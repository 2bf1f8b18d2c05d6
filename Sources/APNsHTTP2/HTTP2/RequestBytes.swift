#if canImport(Glibc)
import Glibc
#endif
internal import CNGHTTP2

/// The bytes of one batch's requests, as its connection hands them to
/// nghttp2: every method, path, `authorization`, header name and value and
/// body, with the connection's `:scheme` and `:authority`, copied once into
/// one allocation that this object owns and frees.
///
/// Ownership: nghttp2 is given pointers into these bytes only inside this
/// type's methods (`submit`, `copyBody`), with `NO_COPY` flags, so it reads
/// the header bytes in place until it has sent the stream's HEADERS. Each
/// stream holds its batch, and the batch holds this object, until nghttp2
/// has closed the stream: the bytes outlive every read nghttp2 makes of
/// them. The bytes never move and never change after `init`.
///
/// `@unchecked Sendable`: built whole on the sending thread, then only
/// read (by the loop thread that sends the batch); nothing is written after
/// `init`, and the storage is freed in `deinit`, when nothing can read it.
final class RequestBytes: @unchecked Sendable {
    /// Where some bytes are in the storage's text.
    private struct Span {
        var offset: Int
        var count: Int
    }

    /// One request's parts: spans of text, its headers' records, its timeout.
    private struct Request {
        var method: Span
        var path: Span
        /// nil: the request has no `authorization`.
        var authorization: Span?
        var body: Span
        var firstHeader: Int
        var headerCount: Int
        var timeout: Duration
    }

    /// One request header's name and value, and how HPACK is to index it.
    private struct Header {
        var name: Span
        var value: Span
        var indexing: HeaderNaming.Indexing
    }

    /// The positions of the requests (in their `HTTP2Requests`) held here.
    let range: Range<Int>
    private let storage: UnsafeMutableRawPointer
    private let requests: UnsafeMutablePointer<Request>
    private let headers: UnsafeMutablePointer<Header>
    private let text: UnsafeMutablePointer<UInt8>
    /// The pseudo header names, `authorization`, and the connection's values.
    private let methodName, schemeName, scheme, authorityName, authority, pathName, authorizationName: Span
    /// Entries of the largest block a request here makes.
    private let mostEntries: Int

    /// Copies `source[range]` and the connection's `authority`; `naming`
    /// says how each header name is indexed.
    init(_ source: HTTP2Requests, range: Range<Int>, authority: String, naming: HeaderNaming) {
        self.range = range
        let fixedNames: [StaticString] = [":method", ":scheme", "https", ":authority", ":path", "authorization"]
        // First the sizes, then one allocation: the records, then the text.
        var textCount = authority.utf8.count + fixedNames.reduce(0) { $0 + $1.utf8CodeUnitCount }
        var headerCount = 0
        var mostHeaders = 0
        source.forEach(in: range) { parts in
            textCount += parts.method.utf8.count + parts.path.utf8.count + (parts.authorization?.utf8.count ?? 0) + parts.body.count
            for header in parts.headers { textCount += header.name.utf8.count + header.value.utf8.count }
            headerCount += parts.headers.count
            mostHeaders = max(mostHeaders, parts.headers.count)
        }
        mostEntries = 6 + mostHeaders
        let requestBytes = range.count * MemoryLayout<Request>.stride
        let headerStart = (requestBytes + MemoryLayout<Header>.alignment - 1) / MemoryLayout<Header>.alignment * MemoryLayout<Header>.alignment
        let textStart = headerStart + headerCount * MemoryLayout<Header>.stride
        let total = textStart + max(1, textCount)
        guard let storage = malloc(total) else { fatalError("out of memory for \(total) bytes of requests") }
        self.storage = storage
        requests = storage.bindMemory(to: Request.self, capacity: range.count)
        headers = (storage + headerStart).bindMemory(to: Header.self, capacity: headerCount)
        let text = (storage + textStart).bindMemory(to: UInt8.self, capacity: max(1, textCount))
        self.text = text

        var used = 0
        func place(_ bytes: UnsafeBufferPointer<UInt8>) -> Span {
            if let base = bytes.baseAddress, !bytes.isEmpty { (text + used).update(from: base, count: bytes.count) }
            defer { used += bytes.count }
            return Span(offset: used, count: bytes.count)
        }
        func place(_ string: String) -> Span {
            // Native strings (all but bridged ones) are contiguous: no copy of the string.
            if let span = string.utf8.withContiguousStorageIfAvailable({ place($0) }) { return span }
            var copy = string
            return copy.withUTF8 { place($0) }
        }
        func place(_ literal: StaticString) -> Span {
            literal.withUTF8Buffer { place($0) }
        }
        let fixed = fixedNames.map { place($0) }
        (methodName, schemeName, scheme, authorityName, pathName, authorizationName) = (fixed[0], fixed[1], fixed[2], fixed[3], fixed[4], fixed[5])
        self.authority = place(authority)

        var request = requests
        var header = headers
        var headerIndex = 0
        source.forEach(in: range) { parts in
            let method = place(parts.method)
            let path = place(parts.path)
            let authorization = parts.authorization.map { place($0) }
            let body = parts.body.withUnsafeBufferPointer { place($0) }
            for each in parts.headers {
                let name = place(each.name)
                let value = place(each.value)
                let indexing = naming.indexing(of: UnsafeBufferPointer(start: text + name.offset, count: name.count))
                header.initialize(to: Header(name: name, value: value, indexing: indexing))
                header += 1
            }
            request.initialize(to: Request(method: method, path: path, authorization: authorization, body: body,
                                           firstHeader: headerIndex, headerCount: parts.headers.count, timeout: parts.timeout))
            headerIndex += parts.headers.count
            request += 1
        }
    }

    deinit {
        // Every record is a plain value: nothing to deinitialize.
        free(storage)
    }

    /// The record of request `index` (a position of `range`).
    private func record(_ index: Int) -> Request {
        requests[index - range.lowerBound]
    }

    /// The time request `index` has, from when it was first sent.
    func timeout(_ index: Int) -> Duration { record(index).timeout }

    /// The size of request `index`'s body.
    func bodyCount(_ index: Int) -> Int { record(index).body.count }

    /// Copies request `index`'s body from `offset` on, up to `capacity`
    /// bytes, into `buffer` (nghttp2's frame); returns the count copied.
    func copyBody(_ index: Int, from offset: Int, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        let body = record(index).body
        let count = max(0, min(body.count - offset, capacity))
        if count > 0 { buffer.update(from: text + body.offset + offset, count: count) }
        return count
    }

    /// The position among request `index`'s headers of the one with this
    /// name and value, if it has one (bytes compared, lengths first).
    func headerPosition(_ index: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int? {
        let request = record(index)
        for position in 0..<request.headerCount {
            let header = headers[request.firstHeader + position]
            if header.value.count == value.count, header.name.count == name.count, equal(header.value, value), equal(header.name, name) {
                return position
            }
        }
        return nil
    }

    private func equal(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        span.count == 0 || memcmp(text + span.offset, bytes.baseAddress!, span.count) == 0
    }

    /// Submits request `index` to `session` as a new stream: its header
    /// block points into these bytes (nghttp2 copies the entries, not the
    /// bytes); `reader` and `stream` are its body's reader and the stream's
    /// user data (nghttp2 reads the body through `copyBody`). `indexing` is
    /// the connection's: the names still to be indexed once are indexed by
    /// this block, unless nghttp2 refuses it. Returns the stream id, or
    /// nghttp2's error (negative).
    func submit(_ index: Int, to session: OpaquePointer, indexing: inout HeaderIndexing,
                reader: nghttp2_data_source_read_callback, stream: UnsafeMutableRawPointer) -> Int32 {
        let before = indexing.start()
        let hasBody = record(index).body.count > 0
        let streamID = withHeaderBlock(index, indexing: &indexing) { entries in
            if hasBody {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: stream), read_callback: reader)
                return nghttp2_submit_request(session, nil, entries.baseAddress, entries.count, &provider, stream)
            }
            return nghttp2_submit_request(session, nil, entries.baseAddress, entries.count, nil, stream)
        }
        if streamID < 0 { indexing.notSent(since: before) }
        return streamID
    }

    /// Calls `body` with request `index`'s header block: `:method`, the
    /// connection's `:scheme` and `:authority`, `:path`, `authorization`
    /// when it has one, then its headers in order, each pointing into these
    /// bytes, flagged for nghttp2 not to copy them. The entries are valid
    /// during the call; the bytes they point to, as long as this object.
    func withHeaderBlock<Result>(_ index: Int, indexing: inout HeaderIndexing,
                                 _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result) -> Result {
        let request = record(index)
        return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: mostEntries) { entries in
            var count = 0
            func add(_ name: Span, _ value: Span, _ flags: UInt8) {
                entries.initializeElement(at: count, to: nghttp2_nv(name: text + name.offset, value: text + value.offset,
                                                                    namelen: name.count, valuelen: value.count, flags: flags))
                count += 1
            }
            add(methodName, request.method, Self.noCopy)
            add(schemeName, scheme, Self.noCopy)
            add(authorityName, authority, Self.noCopy)
            add(pathName, request.path, Self.neverIndexed)
            if let authorization = request.authorization { add(authorizationName, authorization, Self.neverIndexed) }
            for position in 0..<request.headerCount {
                let header = headers[request.firstHeader + position]
                add(header.name, header.value, indexing.indexes(header.indexing) ? Self.noCopy : Self.neverIndexed)
            }
            defer { entries.baseAddress!.deinitialize(count: count) }
            return body(UnsafeBufferPointer(rebasing: entries[..<count]))
        }
    }

    private static let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
    private static let neverIndexed = noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
}
