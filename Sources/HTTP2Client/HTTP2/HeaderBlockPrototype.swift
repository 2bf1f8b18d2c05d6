#if canImport(Glibc)
import Glibc
#endif
internal import CNGHTTP2

/// A header block as one request of a connection had it, in bytes of its
/// own: the requests that follow (the same topic, push type, priority,
/// token…) point nghttp2 at these bytes instead of copying their strings,
/// and copy only `:path` and the values that differ (`HeaderBlocks`).
///
/// Immutable once made. Each stream whose block points into it holds it
/// (`PendingStream.headerPrototype`) until the stream is gone, which is
/// after nghttp2 last reads a stream's header bytes; a prototype replaced
/// on its connection lives on for the streams still using it. Used on one
/// connection's loop thread only.
final class HeaderBlockPrototype {
    /// `:method`, the connection's fixed headers, `:path` (without a value:
    /// each stream's own), `authorization` when the request has one, then
    /// the request's headers in order; nghttp2 copies none of the bytes.
    let entries: UnsafeMutableBufferPointer<nghttp2_nv>
    /// As many entries again, for `HeaderBlocks` to fill for each stream
    /// (one thread uses them, one stream at a time).
    let scratch: UnsafeMutableBufferPointer<nghttp2_nv>
    /// Where `:path` is in `entries`.
    let pathEntry: Int
    /// Where the request's first header is in `entries`.
    let firstHeaderEntry: Int
    let headerCount: Int
    /// An `authorization` entry follows `:path`.
    let hasAuthorization: Bool
    /// The entries of the request's headers named in the connection's
    /// `indexedOnce` list, each with its name's place in it.
    let indexedOnceEntries: [(entry: Int, name: Int)]
    /// What the entries were copied from, by identity (`StringIdentity`):
    /// the method, the authorization (or its absence), then each header's
    /// name and value. In the same allocation as the rest: read for every
    /// stream, they cost no bounds check and no retain of an array.
    private let identities: UnsafeMutablePointer<StringIdentity>
    /// The strings those identities are of, kept alive: only then do equal
    /// identities mean equal bytes.
    private let kept: (method: String, authorization: String?, headers: [HTTPHeader])
    private let bytes: UnsafeMutableRawPointer
    // Where the strings are inside a header (read once here: a `static
    // let` would cost a `swift_once` check on every read).
    private let nameOffset = MemoryLayout<HTTPHeader>.offset(of: \.name)!
    let valueOffset = MemoryLayout<HTTPHeader>.offset(of: \.value)!

    /// The most headers whose values `mismatchedValues` follows (one bit each).
    static let maximumHeaders = 62

    /// Copies `request`'s block. `fixed` are the connection's own pseudo
    /// headers (`:scheme`, `:authority`); headers named in `unindexed` or
    /// `indexedOnce` are sent never indexed, like `:path` and
    /// `authorization` (APNs asks so; `HeaderBlocks` indexes each
    /// `indexedOnce` name the first time on its connection).
    init(request parts: RequestParts, fixed: [(name: [UInt8], value: [UInt8])], unindexed: [[UInt8]],
         indexedOnce: [[UInt8]] = []) {
        let request = (method: parts.method.pointee, authorization: parts.authorization.pointee, headers: parts.headers.pointee)
        kept = request
        headerCount = request.headers.count
        hasAuthorization = request.authorization != nil
        pathEntry = 1 + fixed.count
        firstHeaderEntry = pathEntry + 1 + (hasAuthorization ? 1 : 0)
        let count = firstHeaderEntry + headerCount
        var texts: [(name: [UInt8], value: [UInt8], neverIndexed: Bool)] = [(Array(":method".utf8), Array(request.method.utf8), false)]
        for header in fixed { texts.append((header.name, header.value, false)) }
        texts.append((Array(":path".utf8), [], true))
        if let authorization = request.authorization { texts.append((Array("authorization".utf8), Array(authorization.utf8), true)) }
        var indexedOnceEntries: [(entry: Int, name: Int)] = []
        for header in request.headers {
            let name = Array(header.name.utf8)
            let neverIndexed = unindexed.contains(name)
            // Never indexed wins over indexed once: a value kept out of the tables stays out.
            let place = neverIndexed ? nil : indexedOnce.firstIndex(of: name)
            if let place { indexedOnceEntries.append((texts.count, place)) }
            texts.append((name, Array(header.value.utf8), place != nil || neverIndexed))
        }
        self.indexedOnceEntries = indexedOnceEntries
        // One allocation: identities, entries, scratch entries, then the bytes.
        let identityCount = 2 + 2 * headerCount
        let identitiesBytes = identityCount * MemoryLayout<StringIdentity>.stride
        let entriesBytes = count * MemoryLayout<nghttp2_nv>.stride
        let total = identitiesBytes + 2 * entriesBytes + texts.reduce(0) { $0 + $1.name.count + $1.value.count }
        guard let base = malloc(total) else { fatalError("out of memory for a header block of \(total) bytes") }
        bytes = base
        identities = base.bindMemory(to: StringIdentity.self, capacity: identityCount)
        entries = UnsafeMutableBufferPointer(start: (base + identitiesBytes).bindMemory(to: nghttp2_nv.self, capacity: 2 * count), count: count)
        scratch = UnsafeMutableBufferPointer(start: entries.baseAddress! + count, count: count)
        var text = (base + identitiesBytes + 2 * entriesBytes).assumingMemoryBound(to: UInt8.self)
        func place(_ part: [UInt8]) -> (UnsafeMutablePointer<UInt8>, Int) {
            let start = text
            if !part.isEmpty { start.update(from: part, count: part.count) }
            text += part.count
            return (start, part.count)
        }
        for (index, entry) in texts.enumerated() {
            let (name, value) = (place(entry.name), place(entry.value))
            (entries.baseAddress! + index).initialize(to: nghttp2_nv(
                name: name.0, value: value.0, namelen: name.1, valuelen: value.1,
                flags: entry.neverIndexed ? Self.neverIndexed : Self.noCopy))
        }
        scratch.baseAddress!.initialize(from: entries.baseAddress!, count: count)
        identities.initialize(to: StringIdentity(of: kept.method))
        (identities + 1).initialize(to: withUnsafeBytes(of: kept.authorization) { StringIdentity(at: $0.baseAddress!) })
        kept.headers.withUnsafeBufferPointer { headers in
            for index in headers.indices {
                (identities + 2 + 2 * index).initialize(to: StringIdentity(at: UnsafeRawPointer(headers.baseAddress! + index) + nameOffset))
                (identities + 3 + 2 * index).initialize(to: StringIdentity(at: UnsafeRawPointer(headers.baseAddress! + index) + valueOffset))
            }
        }
    }

    deinit {
        free(bytes)
    }

    static let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
    static let neverIndexed = noCopy | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    /// The values of `request` that may differ from this block's (bit 0 the
    /// method, bit 1 the authorization, bit 2 + i header i's value), or nil
    /// when the request has another form: an authorization where this block
    /// has none or the reverse, or other header names (by identity).
    func mismatchedValues(_ request: RequestParts, headers: UnsafeBufferPointer<HTTPHeader>) -> UInt64? {
        guard headers.count == headerCount, headerCount <= Self.maximumHeaders else { return nil }
        var mismatched: UInt64 = 0
        if request.methodIdentity != identities[0] { mismatched |= 1 }
        if request.authorizationIdentity != identities[1] {
            guard (request.authorization.pointee != nil) == hasAuthorization else { return nil }
            mismatched |= 2
        }
        var header = UnsafeRawPointer(headers.baseAddress)
        for index in 0..<headerCount {
            guard StringIdentity(at: header! + nameOffset) == identities[2 + 2 * index] else { return nil }
            if StringIdentity(at: header! + valueOffset) != identities[3 + 2 * index] { mismatched |= 4 << UInt64(index) }
            header = header! + MemoryLayout<HTTPHeader>.stride
        }
        return mismatched
    }
}
