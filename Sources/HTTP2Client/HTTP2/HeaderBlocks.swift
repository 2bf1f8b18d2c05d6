internal import CNGHTTP2

/// The header blocks of one connection's streams, made from the
/// connection's current `HeaderBlockPrototype`: a request of the
/// prototype's form (same header names, authorization or not) points at
/// the prototype's bytes for every value it shares with it, compared by
/// string identity (no string is read, retained or copied for them), and
/// only its `:path` and the values that differ (APNs: `apns-id`) are copied,
/// into the stream's own arena. nghttp2 copies the entry array itself, so
/// the prototype's scratch entries serve every stream.
///
/// When to make a new prototype: when a request of another form comes once
/// `usesBeforeReplacing` streams were made since the prototype was (before
/// that, such a request gets a prototype of its own, not kept), or when a
/// request differs in a value that had repeated (a new event's collapse id,
/// a new token) after as many: a workload that alternates makes a prototype at most once
/// per `usesBeforeReplacing` streams, and a value that never repeats (the
/// `apns-id`) never makes one.
///
/// Loop-thread state of one connection.
struct HeaderBlocks {
    private let fixed: [(name: [UInt8], value: [UInt8])]
    private let unindexed: [[UInt8]]
    private let indexedOnce: [[UInt8]]
    private var prototype: HeaderBlockPrototype?
    /// Streams whose blocks were made since `prototype` was (by it or, for
    /// requests of another form, by a prototype of their own).
    private var uses = 0
    /// Value positions of `prototype` (as `mismatchedValues` numbers them)
    /// that a later request repeated.
    private var repeated: UInt64 = 0
    /// The `indexedOnce` names (bit i: name i) not yet sent on this
    /// connection. Each goes with incremental indexing the first time, so
    /// that the name enters both HPACK tables, and never indexed after,
    /// its name then a reference into the table: PROTOCOLS.md A1's rule for
    /// `apns-id`, `apns-expiration` and `apns-collapse-id`. Every request
    /// after the first carries those names as a byte or two each instead
    /// of their Huffman-coded text.
    private var namesNotYetIndexed: UInt64
    /// The names the last block made took off `namesNotYetIndexed`.
    private var namesIndexedByLastBlock: UInt64 = 0

    static let usesBeforeReplacing = 8

    /// No fixed headers, no prototype: what a connection's `headerBlocks`
    /// holds while they are taken out (`submitWaiting`). Allocates nothing.
    static var none: HeaderBlocks { HeaderBlocks(fixed: [], unindexed: [], indexedOnce: []) }

    /// - Parameters:
    ///   - fixed: the connection's own pseudo headers (`:scheme`, `:authority`).
    ///   - unindexed: header names (lowercase bytes) to send never indexed.
    ///   - indexedOnce: header names to send with incremental indexing the
    ///     first time on the connection, never indexed after.
    init(fixed: [(name: [UInt8], value: [UInt8])], unindexed: [[UInt8]], indexedOnce: [[UInt8]] = []) {
        self.fixed = fixed
        self.unindexed = unindexed
        self.indexedOnce = indexedOnce
        namesNotYetIndexed = indexedOnce.isEmpty ? 0 : UInt64.max >> (64 - min(64, indexedOnce.count))
    }

    /// Calls `body` with `stream`'s header block: valid during the call for
    /// nghttp2 to copy the entries; the bytes they point to live as long as
    /// the stream (its arena and the prototype it now holds).
    mutating func withBlock<Result>(for stream: PendingStream, _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result) -> Result {
        let request = stream.request
        return request.headers.pointee.withUnsafeBufferPointer { headers in
            let (prototype, mismatched) = choosePrototype(request, headers)
            stream.headerPrototype = prototype
            let entries = prototype.scratch
            entries.baseAddress!.update(from: prototype.entries.baseAddress!, count: entries.count)
            namesIndexedByLastBlock = 0
            if namesNotYetIndexed != 0 { indexNamesTheFirstTime(entries, prototype) }
            // The stream's own bytes: `:path`, then each value that differs,
            // each string read where it is (through its address: no copy,
            // no retain): its bytes go into the arena as its length is
            // learned, the arena growing if it must, and the entries get
            // their addresses once all are placed.
            func withText<R>(ofValue position: Int, _ body: (UnsafePointer<String>) -> R) -> R {
                switch position {
                case 0:
                    return body(request.method)
                case 1:
                    // Differs only when both have one (`mismatchedValues`); rare (a new token).
                    let authorization = request.authorization.pointee ?? ""
                    return withUnsafePointer(to: authorization, body)
                default:
                    let header = UnsafeRawPointer(headers.baseAddress! + position - 2)
                    return body((header + prototype.valueOffset).assumingMemoryBound(to: String.self))
                }
            }
            func entry(ofValue position: Int) -> Int {
                switch position {
                case 0: 0
                case 1: prototype.pathEntry + 1
                default: prototype.firstHeaderEntry + position - 2
                }
            }
            var used = 0
            func place(_ text: UnsafePointer<String>, at entry: Int) {
                // A constant for the closure (a captured variable would
                // be checked for exclusivity at run time).
                let start = used
                let count = Self.copy(text) { length in stream.arena(atLeast: start + length) + start }
                entries[entry].valuelen = count
                used += count
            }
            place(request.path, at: prototype.pathEntry)
            var rest = mismatched
            while rest != 0 {
                let position = rest.trailingZeroBitCount
                withText(ofValue: position) { place($0, at: entry(ofValue: position)) }
                rest &= rest - 1
            }
            var cursor = stream.arena(atLeast: used)
            func point(_ entry: Int) {
                entries[entry].value = cursor
                cursor += entries[entry].valuelen
            }
            point(prototype.pathEntry)
            rest = mismatched
            while rest != 0 {
                point(entry(ofValue: rest.trailingZeroBitCount))
                rest &= rest - 1
            }
            return body(UnsafeBufferPointer(entries))
        }
    }

    /// Sends each name of `namesNotYetIndexed` that this block has with
    /// incremental indexing (this once) and takes it off the list.
    private mutating func indexNamesTheFirstTime(_ entries: UnsafeMutableBufferPointer<nghttp2_nv>, _ prototype: HeaderBlockPrototype) {
        for (entry, name) in prototype.indexedOnceEntries where name < 64 && namesNotYetIndexed & (1 << UInt64(name)) != 0 {
            entries[entry].flags = HeaderBlockPrototype.noCopy
            namesNotYetIndexed &= ~(1 << UInt64(name))
            namesIndexedByLastBlock |= 1 << UInt64(name)
        }
    }

    /// The last block made was not sent (nghttp2 refused the request): the
    /// names it was to index wait for the next block that has them.
    mutating func lastBlockNotSent() {
        namesNotYetIndexed |= namesIndexedByLastBlock
        namesIndexedByLastBlock = 0
    }

    /// The prototype for `request`, and the values (as `mismatchedValues`
    /// numbers them) it does not share with it.
    private mutating func choosePrototype(_ request: RequestParts, _ headers: UnsafeBufferPointer<HTTPHeader>)
        -> (HeaderBlockPrototype, UInt64) {
        guard headers.count <= HeaderBlockPrototype.maximumHeaders else {
            // Too many values to follow: a block of its own.
            return (HeaderBlockPrototype(request: request, fixed: fixed, unindexed: unindexed, indexedOnce: indexedOnce), 0)
        }
        if let prototype, let mismatched = prototype.mismatchedValues(request, headers: headers) {
            if mismatched & repeated == 0 || uses < Self.usesBeforeReplacing {
                uses += 1
                repeated |= ~mismatched
                return (prototype, mismatched)
            }
        } else if prototype != nil, uses < Self.usesBeforeReplacing {
            // Counted too: requests of one other form replace the prototype
            // after as many as any others would.
            uses += 1
            return (HeaderBlockPrototype(request: request, fixed: fixed, unindexed: unindexed, indexedOnce: indexedOnce), 0)
        }
        let made = HeaderBlockPrototype(request: request, fixed: fixed, unindexed: unindexed, indexedOnce: indexedOnce)
        prototype = made
        uses = 1
        repeated = 0
        return (made, 0)
    }

    /// Copies the UTF-8 bytes of the string at `text` to where `destination`
    /// says for their count; returns the count.
    private static func copy(_ text: UnsafePointer<String>, to destination: (Int) -> UnsafeMutablePointer<UInt8>) -> Int {
        // The count first (known without reading the bytes), then the bytes
        // read where they are, through the address, in a closure that only
        // copies: no copy of the string, no retain. A string whose bytes are
        // not contiguous is made native first, in a copy.
        let count = text.pointee.utf8.count
        let target = destination(count)
        let copied: Void? = text.pointee.utf8.withContiguousStorageIfAvailable { utf8 in
            if let base = utf8.baseAddress { target.update(from: base, count: utf8.count) }
        }
        if copied == nil {
            var copy = text.pointee
            copy.withUTF8 { utf8 in if let base = utf8.baseAddress { target.update(from: base, count: utf8.count) } }
        }
        return count
    }
}
