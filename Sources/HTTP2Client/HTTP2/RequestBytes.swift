#if canImport(Glibc)
import Glibc
#endif
internal import CNGHTTP2
import PayloadBuilder

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

    /// Copies rendered requests `requests[range]` into one new allocation,
    /// with the `method`, `authorization` and `timeout` they share (copied
    /// once). The requests are read where they are (a buffer of the
    /// caller's array): no copy of a request or of its strings and arrays.
    static func copy(rendered requests: UnsafeBufferPointer<ProviderRequest>, range: Range<Int>, method: String,
                     authorization: String?, timeout: Duration, authority: String, naming: HeaderNaming) -> Made {
        var sizes = Sizes(authority: authority)
        sizes.addText(method.utf8.count + (authorization?.utf8.count ?? 0))
        for index in range {
            sizes.addText(requests[index].path.utf8.count + requests[index].body.count)
            requests[index].headers.withUnsafeBufferPointer { sizes.add($0) }
        }
        var builder = Builder(sizes, range: range, authority: authority)
        let sharedMethod = builder.text.place(method)
        let sharedAuthorization = authorization.map { builder.text.place($0) }
        for index in range {
            let path = builder.text.place(requests[index].path)
            let body = requests[index].body.withUnsafeBufferPointer { builder.text.place($0) }
            let headers = requests[index].headers.withUnsafeBufferPointer { builder.add($0, naming: naming) }
            builder.add(Request(method: sharedMethod, path: path, authorization: sharedAuthorization, body: body, firstHeader: headers.lowerBound,
                                headerCount: headers.count, timeout: timeout))
        }
        return builder.made
    }

    /// As `copy(rendered:…)`, for requests each with its own method,
    /// authorization and timeout.
    static func copy(separate requests: UnsafeBufferPointer<HTTP2Request>, range: Range<Int>, authority: String,
                     naming: HeaderNaming) -> Made {
        var sizes = Sizes(authority: authority)
        for index in range {
            sizes.addText(requests[index].method.utf8.count + (requests[index].authorization?.utf8.count ?? 0)
                + requests[index].path.utf8.count + requests[index].body.count)
            requests[index].headers.withUnsafeBufferPointer { sizes.add($0) }
        }
        var builder = Builder(sizes, range: range, authority: authority)
        for index in range {
            let method = builder.text.place(requests[index].method)
            let authorization = requests[index].authorization.map { builder.text.place($0) }
            let path = builder.text.place(requests[index].path)
            let body = requests[index].body.withUnsafeBufferPointer { builder.text.place($0) }
            let headers = requests[index].headers.withUnsafeBufferPointer { builder.add($0, naming: naming) }
            builder.add(Request(method: method, path: path, authorization: authorization, body: body, firstHeader: headers.lowerBound,
                                headerCount: headers.count, timeout: requests[index].timeout))
        }
        return builder.made
    }

    /// What a batch needs room for: its text (an upper bound: bytes that
    /// repeat the first request's are not copied again) and header records.
    private struct Sizes {
        var text: Int
        var headers = 0
        var mostHeaders = 0

        init(authority: String) {
            text = authority.utf8.count + 7 + 7 + 5 + 10 + 5 + 13
        }

        mutating func addText(_ count: Int) {
            text += count
        }

        mutating func add(_ headers: UnsafeBufferPointer<HTTPHeader>) {
            for header in headers.indices { text += headers[header].name.utf8.count + headers[header].value.utf8.count }
            self.headers += headers.count
            mostHeaders = max(mostHeaders, headers.count)
        }
    }

    /// Fills a new allocation: the request records, then the header
    /// records, then the text.
    private struct Builder {
        let range: Range<Int>
        let storage: UnsafeMutableRawPointer
        let requests: UnsafeMutablePointer<Request>
        let headers: UnsafeMutablePointer<Header>
        var text: TextWriter
        let fixed: (Span, Span, Span, Span, Span, Span, Span)
        let mostEntries: Int
        var requestCount = 0
        var headerCount = 0
        /// The first request's headers: a later request's header at the
        /// same position with the same bytes takes their text (and a name,
        /// its indexing) instead of a copy and a lookup of its own. The
        /// requests of a rendered batch share every name and most values.
        var firstHeaders = 0..<0

        init(_ sizes: Sizes, range: Range<Int>, authority: String) {
            let requestBytes = range.count * MemoryLayout<Request>.stride
            let alignment = MemoryLayout<Header>.alignment
            let headerStart = (requestBytes + alignment - 1) / alignment * alignment
            let textStart = headerStart + sizes.headers * MemoryLayout<Header>.stride
            let total = textStart + max(1, sizes.text)
            guard let storage = malloc(total) else { fatalError("out of memory for \(total) bytes of requests") }
            self.range = range
            self.storage = storage
            requests = storage.bindMemory(to: Request.self, capacity: range.count)
            headers = (storage + headerStart).bindMemory(to: Header.self, capacity: sizes.headers)
            text = TextWriter(text: (storage + textStart).bindMemory(to: UInt8.self, capacity: max(1, sizes.text)))
            fixed = (text.place(":method"), text.place(":scheme"), text.place("https"), text.place(":authority"), text.place(authority),
                     text.place(":path"), text.place("authorization"))
            mostEntries = 6 + sizes.mostHeaders
        }

        /// Copies one request's headers; returns where their records are.
        ///
        /// Two passes: the first only reads (which of the names and values
        /// repeat the first request's), the second writes. A string read in
        /// a loop that also writes through a pointer is retained for the
        /// write's sake (the write might reach it); a pass that writes
        /// nothing reads the strings in place.
        mutating func add(_ source: UnsafeBufferPointer<HTTPHeader>, naming: HeaderNaming) -> Range<Int> {
            let first = headerCount
            let compared = min(source.count, firstHeaders.count, UInt64.bitWidth)
            var sameNames: UInt64 = 0
            var sameValues: UInt64 = 0
            for position in 0..<compared {
                let earlier = headers[firstHeaders.lowerBound + position]
                if text.holds(source[position].name, at: earlier.name) { sameNames |= 1 << UInt64(position) }
                if text.holds(source[position].value, at: earlier.value) { sameValues |= 1 << UInt64(position) }
            }
            for position in source.indices {
                let bit: UInt64 = position < compared ? 1 << UInt64(position) : 0
                let earlier = bit != 0 ? headers[firstHeaders.lowerBound + position] : nil
                let name: Span
                let indexing: HeaderNaming.Indexing
                if let earlier, sameNames & bit != 0 {
                    (name, indexing) = (earlier.name, earlier.indexing)
                } else {
                    name = text.place(source[position].name)
                    indexing = naming.indexing(of: text.bytes(name))
                }
                let value = if let earlier, sameValues & bit != 0 { earlier.value } else { text.place(source[position].value) }
                (headers + headerCount).initialize(to: Header(name: name, value: value, indexing: indexing))
                headerCount += 1
            }
            if requestCount == 0 { firstHeaders = first..<headerCount }
            return first..<headerCount
        }

        mutating func add(_ request: Request) {
            (requests + requestCount).initialize(to: request)
            requestCount += 1
        }

        var made: Made {
            Made(range: range, storage: storage, requests: requests, headers: headers, text: text.text, mostEntries: mostEntries,
                 fixed: fixed)
        }
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

        /// Copies the string's bytes.
        @inline(__always)
        mutating func place(_ string: borrowing String) -> Span {
            // Native strings (all but bridged ones) are contiguous: no copy of the string.
            string.utf8.withContiguousStorageIfAvailable { place($0) } ?? placeCopy(copy string)
        }

        @inline(never)
        private mutating func placeCopy(_ string: String) -> Span {
            var copy = string
            return copy.withUTF8 { place($0) }
        }

        /// Whether the string's bytes are those of `span`, already placed.
        @inline(__always)
        func holds(_ string: borrowing String, at span: Span) -> Bool {
            guard string.utf8.count == span.count else { return false }
            return string.utf8.withContiguousStorageIfAvailable { Self.equal(text + span.offset, $0, span.count) }
                ?? holdsCopy(copy string, at: span)
        }

        @inline(never)
        private func holdsCopy(_ string: String, at span: Span) -> Bool {
            var copy = string
            return copy.withUTF8 { Self.equal(text + span.offset, $0, span.count) }
        }

        mutating func place(_ literal: StaticString) -> Span {
            literal.withUTF8Buffer { place($0) }
        }

        /// The bytes of `span`, which this writer has placed.
        func bytes(_ span: Span) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: text + span.offset, count: span.count)
        }

        /// Whether `bytes` are the `count` bytes at `start` (8 at a time:
        /// names and most values are short, not worth a call).
        @inline(__always)
        private static func equal(_ start: UnsafePointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>, _ count: Int) -> Bool {
            guard bytes.count == count else { return false }
            guard let base = bytes.baseAddress else { return true }
            let left = UnsafeRawPointer(start)
            let right = UnsafeRawPointer(base)
            var offset = 0
            while offset + 8 <= count {
                guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < count {
                guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self) else { return false }
                offset += 1
            }
            return true
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
