@testable import HTTP2Client
import CNGHTTP2
import XCTest

/// A stream's header block says exactly what its request says (names,
/// values, order and indexing flags, whatever the request's text; the
/// per-request APNs names indexed on the connection's first request), whether
/// its connection's prototype served it, a new one was made, or it got one
/// of its own; and a stream's bytes stay its own while later streams come
/// and the prototype is replaced.
final class HeaderBlocksTests: XCTestCase {
    private struct Field: Equatable, CustomStringConvertible {
        var name: [UInt8]
        var value: [UInt8]
        var neverIndexed: Bool
        var description: String {
            "\(String(decoding: name, as: UTF8.self)): \(String(decoding: value, as: UTF8.self))\(neverIndexed ? " (never indexed)" : "")"
        }
    }

    /// Never indexed: `:path`, `authorization`, and these.
    private let unindexedNames = ["x-secret"]
    /// Indexed the first time on a connection, never indexed after (APNs's rule).
    private let indexedOnceNames = ["apns-id", "apns-expiration", "apns-collapse-id"]

    private func makeBlocks() -> HeaderBlocks {
        HeaderBlocks(fixed: [(Array(":scheme".utf8), Array("https".utf8)), (Array(":authority".utf8), Array("example.com:8443".utf8))],
                     unindexed: unindexedNames.map { Array($0.utf8) }, indexedOnce: indexedOnceNames.map { Array($0.utf8) })
    }

    /// What the block must say: the fixed pseudo headers, then the request's
    /// own bytes. The per-request APNs headers are never indexed, but for the
    /// first request of a connection, which has them indexed so that their
    /// names enter the HPACK tables (PROTOCOLS.md A1).
    private func expected(_ request: HTTP2Request, first: Bool = false) -> [Field] {
        func field(_ name: String, _ value: String, _ neverIndexed: Bool) -> Field {
            Field(name: Array(name.utf8), value: Array(value.utf8), neverIndexed: neverIndexed)
        }
        var fields = [field(":method", request.method, false), field(":scheme", "https", false), field(":authority", "example.com:8443", false),
                      field(":path", request.path, true)]
        if let token = request.authorization { fields.append(field("authorization", token, true)) }
        for header in request.headers {
            let neverIndexed = unindexedNames.contains(header.name) || (!first && indexedOnceNames.contains(header.name))
            fields.append(field(header.name, header.value, neverIndexed))
        }
        return fields
    }

    /// A stream for `request` (alone in its batch) and its block's entries as
    /// handed to nghttp2, which point into the stream's bytes: read them while it lives.
    private func submit(_ request: HTTP2Request, _ blocks: inout HeaderBlocks) -> (PendingStream, [nghttp2_nv]) {
        let stream = PendingStream(batch: BatchCompletion(requests: [request]) { _ in }, index: 0, startedAt: .now)
        let entries = blocks.withBlock(for: stream) { Array($0) }
        return (stream, entries)
    }

    /// What the entries point to, read now.
    private func read(_ entries: [nghttp2_nv]) -> [Field] {
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        return entries.map { entry in
            XCTAssertEqual(entry.flags & noCopy, noCopy, "nghttp2 copies nothing")
            return Field(name: Array(UnsafeBufferPointer(start: entry.name, count: entry.namelen)),
                         value: Array(UnsafeBufferPointer(start: entry.value, count: entry.valuelen)),
                         neverIndexed: entry.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0)
        }
    }

    private let topic = "com.example.app.with.a.long.topic"
    private let collapseID = "37791233165968:537 and some more"

    /// An APNs-like request: shared topic and collapse id, its own path and apns-id.
    private func notification(_ number: Int, collapseID: String? = nil, authorization: String? = "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
        -> HTTP2Request {
        HTTP2Request(path: "/3/device/\(String(number, radix: 16))\(String(repeating: "ab", count: 31))", authorization: authorization,
                     headers: [HTTPHeader("apns-topic", topic), HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-priority", "10"),
                               HTTPHeader("apns-expiration", "0"), HTTPHeader("apns-id", "6b2a4c8e-1f3d-4e5a-9b7c-\(1_000_000_000_000 + number)"),
                               HTTPHeader("apns-collapse-id", collapseID ?? self.collapseID)])
    }

    func testTheBlockIsTheRequestByteForByte() {
        let headers = [HTTPHeader("apns-topic", "com.example.app"), HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-priority", "10"),
                       HTTPHeader("apns-expiration", "0"), HTTPHeader("apns-id", "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c"),
                       HTTPHeader("apns-collapse-id", "37791233165968:537")]
        let requests = [
            HTTP2Request(path: "/3/device/\(String(repeating: "ab", count: 32))", authorization: "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                         headers: headers),
            HTTP2Request(path: "/3/device/x", headers: headers),
            HTTP2Request(method: "PUT", path: "/", authorization: "", headers: [HTTPHeader("x-secret", "s3cr3t")]),
            // Non-ASCII text and canonically equivalent spellings keep their own bytes.
            HTTP2Request(path: "/caf\u{E9}", headers: [HTTPHeader("apns-topic", "com.example.\u{212A}"),
                                                       HTTPHeader("x-e", "cafe\u{301}"), HTTPHeader("apns-id", "")]),
            HTTP2Request(path: "/many", headers: (0..<70).map { HTTPHeader("x-\($0)", String(repeating: "v", count: $0)) }),
        ]
        // Each on a connection of its own, then all in turn on one, in both orders.
        for request in requests {
            var blocks = makeBlocks()
            let (stream, entries) = submit(request, &blocks)
            withExtendedLifetime(stream) { XCTAssertEqual(read(entries), expected(request, first: true), "\(request)") }
        }
        var blocks = makeBlocks()
        for (index, request) in (requests + requests.reversed() + requests).enumerated() {
            let (stream, entries) = submit(request, &blocks)
            withExtendedLifetime(stream) { XCTAssertEqual(read(entries), expected(request, first: index == 0), "\(request)") }
        }
    }

    func testStreamsOfOnePrototypeShareItsBytesAndCopyOnlyTheirOwn() {
        var blocks = makeBlocks()
        // One batch, as the APNs client makes it: one authorization for all.
        let authorization = "bearer " + String(repeating: "t", count: 180)
        let streams = (0..<20).map { submit(notification($0, authorization: authorization), &blocks) }
        for (number, (stream, entries)) in streams.enumerated() {
            XCTAssertEqual(read(entries), expected(notification(number, authorization: authorization), first: number == 0))
            XCTAssert(stream.headerPrototype === streams[0].0.headerPrototype, "one prototype serves the batch")
            // The topic's bytes are the prototype's, not a copy per stream.
            XCTAssertEqual(entries[5].value, streams[0].1[5].value)
        }
        // Equal text in another string (a copy made elsewhere) is sent as it is.
        let copied = String(decoding: Array(authorization.utf8), as: UTF8.self)
        let (stream, entries) = submit(notification(99, authorization: copied), &blocks)
        withExtendedLifetime(stream) { XCTAssertEqual(read(entries), expected(notification(99, authorization: copied))) }
    }

    func testANewValueThatRepeatedMakesANewPrototypeAndOldStreamsKeepTheirBytes() {
        var blocks = makeBlocks()
        let first = (0..<12).map { submit(notification($0), &blocks) }
        // A new event: another collapse id (a value that had repeated), then more of it.
        let otherID = String(repeating: "c", count: 40)
        let second = (12..<30).map { submit(notification($0, collapseID: otherID), &blocks) }
        XCTAssert(second[0].0.headerPrototype !== first[0].0.headerPrototype, "a new prototype for the new event")
        XCTAssert(second[17].0.headerPrototype === second[0].0.headerPrototype, "kept for the event's later streams")
        // Every stream's bytes still say its request, the old prototype's streams included.
        for (number, (_, entries)) in first.enumerated() { XCTAssertEqual(read(entries), expected(notification(number), first: number == 0)) }
        for (offset, (_, entries)) in second.enumerated() {
            XCTAssertEqual(read(entries), expected(notification(12 + offset, collapseID: otherID)))
        }
    }

    func testRequestsOfAnotherFormAreSentAsTheyAreWhicheverComesFirst() {
        var blocks = makeBlocks()
        var submitted: [(PendingStream, [nghttp2_nv], HTTP2Request)] = []
        // Alternating forms: with and without authorization, fewer headers, other names.
        for number in 0..<40 {
            var request = notification(number, authorization: number % 3 == 0 ? nil : "bearer abc")
            if number % 4 == 1 { request.headers.removeLast() }
            if number % 5 == 2 { request.headers[0] = HTTPHeader("apns-topix", topic) }
            if number % 7 == 3 { request.method = "PUT" }
            let (stream, entries) = submit(request, &blocks)
            submitted.append((stream, entries, request))
        }
        for (index, (_, entries, request)) in submitted.enumerated() {
            XCTAssertEqual(read(entries), expected(request, first: index == 0), "\(request)")
        }
    }

    func testRequestsOfAnotherFormThanTheFirstGetAPrototypeOfTheirOwnSoon() {
        var blocks = makeBlocks()
        let (first, _) = submit(HTTP2Request(path: "/odd", headers: [HTTPHeader("x-odd", "1")]), &blocks)
        let later = (0..<20).map { submit(notification($0), &blocks) }
        let kept = later[HeaderBlocks.usesBeforeReplacing].0.headerPrototype
        XCTAssert(kept !== first.headerPrototype)
        for (stream, _) in later.dropFirst(HeaderBlocks.usesBeforeReplacing) {
            XCTAssert(stream.headerPrototype === kept, "one prototype for the requests of the usual form")
        }
        // The odd request had none of the per-request names: the first notification brings them.
        for (number, (_, entries)) in later.enumerated() { XCTAssertEqual(read(entries), expected(notification(number), first: number == 0)) }
    }

    func testAStringChangedInPlaceAfterwardsIsNotMistakenForTheOldOne() {
        var blocks = makeBlocks()
        var value = String(repeating: "x", count: 40)
        let before = notification(1, collapseID: value)
        let (firstStream, firstEntries) = submit(before, &blocks)
        // Same length, other bytes, possibly the same storage once the first request is gone.
        value.replaceSubrange(value.startIndex..<value.index(after: value.startIndex), with: "y")
        let after = notification(2, collapseID: value)
        let (stream, entries) = submit(after, &blocks)
        withExtendedLifetime((firstStream, stream)) {
            XCTAssertEqual(read(entries), expected(after))
            XCTAssertEqual(read(firstEntries), expected(before, first: true))
        }
    }

    /// A block nghttp2 did not take leaves its first-time names for the next.
    func testNamesOfABlockNotSentAreIndexedByTheNextBlock() {
        var blocks = makeBlocks()
        let (refused, refusedEntries) = submit(notification(0), &blocks)
        withExtendedLifetime(refused) { XCTAssertEqual(read(refusedEntries), expected(notification(0), first: true)) }
        blocks.lastBlockNotSent()
        let (stream, entries) = submit(notification(1), &blocks)
        withExtendedLifetime(stream) { XCTAssertEqual(read(entries), expected(notification(1), first: true)) }
        let (later, laterEntries) = submit(notification(2), &blocks)
        withExtendedLifetime(later) { XCTAssertEqual(read(laterEntries), expected(notification(2))) }
    }

    /// A name listed both never indexed and indexed once is never indexed,
    /// its first value included.
    func testNeverIndexedWinsOverIndexedOnce() {
        var blocks = HeaderBlocks(fixed: [], unindexed: [Array("apns-collapse-id".utf8)],
                                  indexedOnce: indexedOnceNames.map { Array($0.utf8) })
        let (stream, entries) = submit(notification(0), &blocks)
        withExtendedLifetime(stream) {
            let flags = Dictionary(read(entries).map { (String(decoding: $0.name, as: UTF8.self), $0.neverIndexed) }) { first, _ in first }
            XCTAssertEqual(flags["apns-collapse-id"], true)
            XCTAssertEqual(flags["apns-id"], false, "indexed the first time")
        }
    }
}
