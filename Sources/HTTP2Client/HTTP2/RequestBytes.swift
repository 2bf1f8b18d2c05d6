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
    fileprivate struct Span {
        var offset: Int
        var count: Int
    }

    /// One request's parts: spans of text, its headers' records, its timeout.
    fileprivate struct Request {
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
    fileprivate struct Header {
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
    convenience init(_ source: HTTP2Requests, range: Range<Int>, authority: String, naming: HeaderNaming) {
        self.init(source.copying(range, authority: authority, naming: naming))
    }

    private init(_ made: RequestBytes.Made) {
        (range, storage, requests, headers, text, mostEntries) = (made.range, made.storage, made.requests, made.headers, made.text,
                                                                  made.mostEntries)
        (methodName, schemeName, scheme, authorityName, authority, pathName, authorizationName) = made.fixed
    }

    /// What `copy` makes, for `init` to take over.
    struct Made {
        fileprivate let range: Range<Int>
        fileprivate let storage: UnsafeMutableRawPointer
        fileprivate let requests: UnsafeMutablePointer<Request>
        fileprivate let headers: UnsafeMutablePointer<Header>
        fileprivate let text: UnsafeMutablePointer<UInt8>
        fileprivate let mostEntries: Int
        fileprivate let fixed: (Span, Span, Span, Span, Span, Span, Span)
    }

    /// Copies `requests[range]` into one new allocation. `shared`: the
    /// method, authorization and timeout of every request (copied once);
    /// nil: each request's own. The requests are read where they are (a
    /// buffer of the caller's array): no copy of a request or of its
    /// strings and arrays.
    static func copy<Element: RequestSource>(_ requests: UnsafeBufferPointer<Element>, range: Range<Int>,
                                             shared: (method: String, authorization: String?, timeout: Duration)?,
                                             authority: String, naming: HeaderNaming) -> Made {
        // First the sizes, then one allocation: the records, then the text.
        var textCount = authority.utf8.count + 7 + 7 + 5 + 10 + 5 + 13
        if let shared { textCount += shared.method.utf8.count + (shared.authorization?.utf8.count ?? 0) }
        var headerCount = 0
        var mostHeaders = 0
        for index in range {
            textCount += requests[index].path.utf8.count + requests[index].body.count
            if shared == nil {
                textCount += requests[index].ownMethod.utf8.count + (requests[index].ownAuthorization?.utf8.count ?? 0)
            }
            requests[index].headers.withUnsafeBufferPointer { headers in
                for header in headers.indices { textCount += headers[header].name.utf8.count + headers[header].value.utf8.count }
                headerCount += headers.count
                mostHeaders = max(mostHeaders, headers.count)
            }
        }
        let requestBytes = range.count * MemoryLayout<Request>.stride
        let headerStart = (requestBytes + MemoryLayout<Header>.alignment - 1) / MemoryLayout<Header>.alignment * MemoryLayout<Header>.alignment
        let textStart = headerStart + headerCount * MemoryLayout<Header>.stride
        let total = textStart + max(1, textCount)
        guard let storage = malloc(total) else { fatalError("out of memory for \(total) bytes of requests") }
        let records = storage.bindMemory(to: Request.self, capacity: range.count)
        let headerRecords = (storage + headerStart).bindMemory(to: Header.self, capacity: headerCount)
        let text = (storage + textStart).bindMemory(to: UInt8.self, capacity: max(1, textCount))

        var writer = TextWriter(text: text)
        let fixed = (writer.place(":method"), writer.place(":scheme"), writer.place("https"), writer.place(":authority"),
                     writer.place(authority), writer.place(":path"), writer.place("authorization"))
        let sharedMethod = shared.map { writer.place($0.method) }
        let sharedAuthorization = shared?.authorization.map { writer.place($0) }
        var header = headerRecords
        var headerIndex = 0
        for index in range {
            let method = sharedMethod ?? writer.place(requests[index].ownMethod)
            let authorization = shared == nil ? requests[index].ownAuthorization.map { writer.place($0) } : sharedAuthorization
            let path = writer.place(requests[index].path)
            let body = requests[index].body.withUnsafeBufferPointer { writer.place($0) }
            let count = requests[index].headers.withUnsafeBufferPointer { headers in
                for position in headers.indices {
                    let name = writer.place(headers[position].name)
                    let value = writer.place(headers[position].value)
                    let indexing = naming.indexing(of: UnsafeBufferPointer(start: text + name.offset, count: name.count))
                    header.initialize(to: Header(name: name, value: value, indexing: indexing))
                    header += 1
                }
                return headers.count
            }
            (records + index - range.lowerBound).initialize(to: Request(
                method: method, path: path, authorization: authorization, body: body, firstHeader: headerIndex, headerCount: count,
                timeout: shared?.timeout ?? requests[index].ownTimeout))
            headerIndex += count
        }
        return Made(range: range, storage: storage, requests: records, headers: headerRecords, text: text, mostEntries: 6 + mostHeaders,
                    fixed: fixed)
    }

    /// Copies bytes one after the other into the text of a new allocation.
    private struct TextWriter {
        let text: UnsafeMutablePointer<UInt8>
        var used = 0

        mutating func place(_ bytes: UnsafeBufferPointer<UInt8>) -> Span {
            if let base = bytes.baseAddress, !bytes.isEmpty { (text + used).update(from: base, count: bytes.count) }
            defer { used += bytes.count }
            return Span(offset: used, count: bytes.count)
        }

        mutating func place(_ string: String) -> Span {
            // Native strings (all but bridged ones) are contiguous: no copy of the string.
            if let span = string.utf8.withContiguousStorageIfAvailable({ place($0) }) { return span }
            var copy = string
            return copy.withUTF8 { place($0) }
        }

        mutating func place(_ literal: StaticString) -> Span {
            literal.withUTF8Buffer { place($0) }
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
