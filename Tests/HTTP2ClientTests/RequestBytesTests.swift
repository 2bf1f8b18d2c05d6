@testable import PayloadBuilder
import CNGHTTP2
@testable import HTTP2Client
import XCTest

/// A batch's bytes say exactly what its requests say: each header block
/// (names, values, order and indexing flags, whatever the request's text;
/// the per-request APNs names indexed on the connection's first request),
/// each body in pieces, each timeout, after the requests themselves are gone.
final class RequestBytesTests: XCTestCase {
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
    private let authority = "example.com:8443"

    private var naming: HeaderNaming {
        HeaderNaming(unindexed: unindexedNames.map { Array($0.utf8) }, indexedOnce: indexedOnceNames.map { Array($0.utf8) })
    }

    private func bytes(_ requests: [HTTP2Request], naming: HeaderNaming? = nil) -> RequestBytes {
        RequestBytes(HTTP2Requests(requests), range: requests.indices, authority: authority, naming: naming ?? self.naming)
    }

    /// What the block must say: the fixed pseudo headers, then the request's
    /// own bytes. The per-request APNs headers are never indexed, but for the
    /// first request of a connection, which has them indexed so that their
    /// names enter the HPACK tables (PROTOCOLS.md A1).
    private func expected(_ request: HTTP2Request, first: Bool = false) -> [Field] {
        func field(_ name: String, _ value: String, _ neverIndexed: Bool) -> Field {
            Field(name: Array(name.utf8), value: Array(value.utf8), neverIndexed: neverIndexed)
        }
        var fields = [field(":method", request.method, false), field(":scheme", "https", false), field(":authority", authority, false),
                      field(":path", request.path, true)]
        if let token = request.authorization { fields.append(field("authorization", token, true)) }
        for header in request.headers {
            let neverIndexed = unindexedNames.contains(header.name) || (!first && indexedOnceNames.contains(header.name))
            fields.append(field(header.name, header.value, neverIndexed))
        }
        return fields
    }

    /// Request `index`'s block as handed to nghttp2, read during the call.
    private func block(_ bytes: RequestBytes, _ index: Int, _ indexing: inout HeaderIndexing) -> [Field] {
        let noCopy = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        return bytes.withHeaderBlock(index, indexing: &indexing) { entries in
            entries.map { entry in
                XCTAssertEqual(entry.flags & noCopy, noCopy, "nghttp2 copies nothing")
                return Field(name: Array(UnsafeBufferPointer(start: entry.name, count: entry.namelen)),
                             value: Array(UnsafeBufferPointer(start: entry.value, count: entry.valuelen)),
                             neverIndexed: entry.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0)
            }
        }
    }

    private func notification(_ number: Int, authorization: String? = "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln") -> HTTP2Request {
        HTTP2Request(path: "/3/device/\(String(number, radix: 16))\(String(repeating: "ab", count: 31))", authorization: authorization,
                     headers: [HTTPHeader("apns-topic", "com.example.app"), HTTPHeader("apns-push-type", "alert"),
                               HTTPHeader("apns-priority", "10"), HTTPHeader("apns-expiration", "0"),
                               HTTPHeader("apns-id", "6b2a4c8e-1f3d-4e5a-9b7c-\(1_000_000_000_000 + number)"),
                               HTTPHeader("apns-collapse-id", "37791233165968:537")],
                     body: Array("{\"n\":\(number)}".utf8))
    }

    private let assorted = [
        HTTP2Request(path: "/3/device/\(String(repeating: "ab", count: 32))", authorization: "bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
                     headers: [HTTPHeader("apns-topic", "com.example.app"), HTTPHeader("apns-id", "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c")]),
        HTTP2Request(path: "/3/device/x", headers: [HTTPHeader("apns-collapse-id", "37791233165968:537")]),
        HTTP2Request(method: "PUT", path: "/", authorization: "", headers: [HTTPHeader("x-secret", "s3cr3t")]),
        // Non-ASCII text and canonically equivalent spellings keep their own bytes.
        HTTP2Request(path: "/caf\u{E9}", headers: [HTTPHeader("apns-topic", "com.example.\u{212A}"),
                                                   HTTPHeader("x-e", "cafe\u{301}"), HTTPHeader("apns-id", "")]),
        HTTP2Request(path: "", headers: (0..<70).map { HTTPHeader("x-\($0)", String(repeating: "v", count: $0)) }),
    ]

    func testEachBlockIsItsRequestByteForByte() {
        // Each on a connection of its own, then all in turn on one, in both orders.
        for request in assorted {
            var indexing = HeaderIndexing()
            XCTAssertEqual(block(bytes([request]), 0, &indexing), expected(request, first: true), "\(request)")
        }
        let all = assorted + assorted.reversed() + (0..<20).map { notification($0) }
        let batch = bytes(all)
        var indexing = HeaderIndexing()
        for (index, request) in all.enumerated() {
            // Whether its names were still to be indexed: the first request that has each.
            let earlier = all[..<index].flatMap(\.headers).map(\.name)
            let mine = block(batch, index, &indexing)
            let wanted = expected(request, first: true).map { field in
                var field = field
                let name = String(decoding: field.name, as: UTF8.self)
                if indexedOnceNames.contains(name), earlier.contains(name) { field.neverIndexed = true }
                return field
            }
            XCTAssertEqual(mine, wanted, "request \(index)")
        }
    }

    /// A block nghttp2 did not take leaves its first-time names for the next.
    func testNamesOfABlockNotSentAreIndexedByTheNextBlock() {
        let batch = bytes((0..<3).map { notification($0) })
        var indexing = HeaderIndexing()
        let before = indexing.start()
        XCTAssertEqual(block(batch, 0, &indexing), expected(notification(0), first: true))
        indexing.notSent(since: before)
        XCTAssertEqual(block(batch, 1, &indexing), expected(notification(1), first: true))
        XCTAssertEqual(block(batch, 2, &indexing), expected(notification(2)))
    }

    /// A name listed both never indexed and indexed once is never indexed,
    /// its first value included.
    func testNeverIndexedWinsOverIndexedOnce() {
        let naming = HeaderNaming(unindexed: [Array("apns-collapse-id".utf8)], indexedOnce: indexedOnceNames.map { Array($0.utf8) })
        var indexing = HeaderIndexing()
        let fields = block(bytes([notification(0)], naming: naming), 0, &indexing)
        let flags = Dictionary(fields.map { (String(decoding: $0.name, as: UTF8.self), $0.neverIndexed) }) { first, _ in first }
        XCTAssertEqual(flags["apns-collapse-id"], true)
        XCTAssertEqual(flags["apns-id"], false, "indexed the first time")
        XCTAssertEqual(flags["apns-topic"], false)
    }

    /// The bytes are copies: the requests may go, and a part of a larger
    /// group is read at the group's positions.
    func testTheBytesOutliveTheRequestsAndKeepTheirPositions() {
        var bytes: RequestBytes?
        do {
            let made = (0..<4).map { HTTP2Request(path: "/kept/\($0)/" + String(repeating: "x", count: 40), body: [UInt8]($0..<200),
                                                  timeout: .seconds($0 + 1)) }
            bytes = RequestBytes(HTTP2Requests(made), range: 1..<3, authority: authority, naming: .none)
        }
        var indexing = HeaderIndexing()
        XCTAssertEqual(block(bytes!, 2, &indexing)[3].value, Array(("/kept/2/" + String(repeating: "x", count: 40)).utf8))
        XCTAssertEqual(bytes!.bodyCount(2), 198)
        XCTAssertEqual(bytes!.timeout(1), .seconds(2))
        XCTAssertEqual(bytes!.timeout(2), .seconds(3))
        // The body in pieces, as nghttp2 asks for it.
        var body: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while body.count < 198 {
            let count = buffer.withUnsafeMutableBufferPointer { bytes!.copyBody(2, from: body.count, into: $0.baseAddress!, capacity: 64) }
            XCTAssertGreaterThan(count, 0)
            body += buffer[..<count]
        }
        XCTAssertEqual(body, [UInt8](2..<200))
        XCTAssertEqual(buffer.withUnsafeMutableBufferPointer { bytes!.copyBody(2, from: 198, into: $0.baseAddress!, capacity: 64) }, 0)
    }

    /// Rendered requests share the method, authorization and timeout.
    func testRenderedRequestsCarryTheSharedParts() {
        let rendered = (0..<3).map { index in
            ProviderRequest(platform: .apns, recipientIndex: index, token: "token\(index)", origin: "https://127.0.0.1",
                            path: "/3/device/token\(index)", headers: [HTTPHeader("apns-topic", "com.example")],
                            body: ArraySlice("{\"n\":\(index)}".utf8))
        }
        let requests = HTTP2Requests(rendered: rendered, authorization: "bearer jwt", timeout: .seconds(7))
        let bytes = RequestBytes(requests, range: requests.indices, authority: authority, naming: .none)
        var indexing = HeaderIndexing()
        for index in requests.indices {
            XCTAssertEqual(block(bytes, index, &indexing), expected(requests[index], first: true))
            XCTAssertEqual(bytes.timeout(index), .seconds(7))
            XCTAssertEqual(bytes.bodyCount(index), rendered[index].body.count)
        }
    }

    /// Requests whose headers repeat the first request's, byte for byte or
    /// not (same lengths, one byte apart, at the same positions), each get
    /// their own names, values and indexing.
    func testHeadersLikeTheFirstRequestsKeepTheirOwnBytesAndIndexing() {
        let first = HTTP2Request(path: "/1", headers: [HTTPHeader("apns-id", "aaaaaaaaaaaa"), HTTPHeader("x-secret", "s"),
                                                       HTTPHeader("x-a", "0123456789abcdef0")])
        let same = HTTP2Request(path: "/2", headers: first.headers)
        let apart = HTTP2Request(path: "/3", headers: [HTTPHeader("apns-ie", "aaaaaaaaaaab"), HTTPHeader("x-secreu", "s"),
                                                       HTTPHeader("x-a", "0123456789abcdef1"), HTTPHeader("x-b", "")])
        let swapped = HTTP2Request(path: "/4", headers: [HTTPHeader("x-secret", "s"), HTTPHeader("apns-id", "aaaaaaaaaaaa")])
        let all = [first, same, apart, swapped, same]
        let batch = bytes(all)
        var indexing = HeaderIndexing()
        for (index, request) in all.enumerated() {
            XCTAssertEqual(block(batch, index, &indexing), expected(request, first: index == 0), "request \(index)")
        }
    }

    /// A response header is found among the request's by name and value.
    func testAHeaderIsFoundByItsNameAndValueBytes() {
        let apnsID = "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c"
        let request = HTTP2Request(path: "/", headers: [HTTPHeader("apns-topic", "com.example"), HTTPHeader("apns-id", apnsID)])
        let bytes = bytes([request])
        func position(_ name: String, _ value: String) -> Int? {
            Array(name.utf8).withUnsafeBufferPointer { name in
                Array(value.utf8).withUnsafeBufferPointer { value in bytes.headerPosition(0, name: name, value: value) }
            }
        }
        XCTAssertEqual(position("apns-id", apnsID), 1)
        XCTAssertEqual(position("apns-topic", "com.example"), 0)
        XCTAssertNil(position("apns-id", String(apnsID.dropLast()) + "d"), "another value of the same length")
        XCTAssertNil(position("apns-id", String(apnsID.dropLast())), "a prefix of the value")
        XCTAssertNil(position("apns-id", apnsID.uppercased()), "bytes, not case, decide")
        XCTAssertNil(position("apns-ix", apnsID), "another name")
        XCTAssertNil(position("apns-topic", apnsID), "another header's name with this value")
    }
}
