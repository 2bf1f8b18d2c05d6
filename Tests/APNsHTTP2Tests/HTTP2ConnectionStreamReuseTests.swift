@testable import APNsHTTP2
@testable import HTTP2Client
import CNGHTTP2
import Foundation
import PayloadBuilder
import XCTest
import TestSupport

/// Streams that closed are reused for later requests: a reused stream
/// carries nothing of its last request (status, headers, body, header
/// bytes, result), whether that one was answered, rejected or reset.
final class HTTP2ConnectionStreamReuseTests: XCTestCase {
    func testReusedStreamsAfterResetAndRejectedStreamsAnswerOnlyTheirOwnRequest() async throws {
        let testbed = try APNsTestbed()
        let port = try XCTUnwrap(URLComponents(string: testbed.simulator.url)?.port)
        let connection = try HTTP2Connection(host: "127.0.0.1", port: port, tls: TLSConfiguration(caFile: testbed.caFile))
        defer { connection.shutdown() }
        let authorization = "bearer \(try testbed.tokens.token(now: testbed.clock.epochSeconds))"
        let rendered = try testbed.requests(count: 60)
        func request(_ index: Int) -> HTTP2Request {
            HTTP2Request(path: rendered[index].path, authorization: authorization, headers: rendered[index].headers, body: rendered[index].body)
        }
        // The simulator takes one stream at a time until it has seen the token.
        let first = try await connection.send(request(0))
        XCTAssertEqual(first.status, 200)
        for round in 0..<4 {
            // Every third request is reset by the simulator (more header
            // fields than it takes), every fifth is rejected (a bad token).
            var requests: [HTTP2Request] = []
            for index in 0..<rendered.count {
                var sent = request(index)
                if index % 3 == round % 3 {
                    sent.headers += (0..<300).map { HTTPHeader("x-filler-\($0)", "v") }
                } else if index % 5 == round % 5 {
                    sent.path = "/3/device/not-a-token"
                }
                requests.append(sent)
            }
            let results = await connection.send(requests)
            XCTAssertEqual(results.count, requests.count)
            for (index, result) in results.enumerated() {
                let apnsID = rendered[index].header("apns-id")
                if index % 3 == round % 3 {
                    XCTAssertEqual(result.failure?.kind, .connectionLost, "round \(round), request \(index): \(result)")
                    continue
                }
                let response = try XCTUnwrap(try? result.get(), "round \(round), request \(index): \(result)")
                XCTAssertEqual(response.header("apns-id"), apnsID, "round \(round), request \(index)")
                if index % 5 == round % 5 {
                    XCTAssertEqual(response.status, 400, "round \(round), request \(index)")
                    XCTAssert(String(decoding: response.body, as: UTF8.self).contains("BadDeviceToken"), "round \(round), request \(index)")
                } else {
                    XCTAssertEqual(response.status, 200, "round \(round), request \(index)")
                    XCTAssertEqual(response.body, [], "round \(round), request \(index)")
                    XCTAssertEqual(response.headers.filter { $0.name == "apns-id" }.count, 1, "round \(round), request \(index)")
                }
            }
            if round == 0 {
                // The closed streams were taken back and offered for reuse
                // (the loop takes them back on a turn, which `wake` asks for).
                try await waitUntil("closed streams are offered for reuse") {
                    connection.wake()
                    return connection.inbox.withLock { $0.spareStreams.count } > 0
                }
            }
        }
    }

    func testAReusedStreamStartsOverWithItsNewRequest() {
        let first = BatchCompletion(requests: [HTTP2Request(path: "/first", headers: [HTTPHeader("x-a", "1")], body: [1, 2, 3])]) { _ in }
        let stream = PendingStream(batch: first, index: 0, startedAt: .now)
        stream.status = 503
        stream.appendHeader(HTTPHeader("retry-after", "5"))
        stream.appendHeader(HTTPHeader("apns-id", "a"))
        Array("{}".utf8).withUnsafeBufferPointer { stream.appendBody($0, limit: 100) }
        stream.streamID = 7
        stream.finish(.failure(TransportError(.connectionLost, "reset")))
        stream.recycle()

        let delivered = LockedBox<[Result<HTTP2Response, TransportError>]>()
        let second = BatchCompletion(requests: [HTTP2Request(path: "/second/path/longer", headers: [HTTPHeader("x-b", "2")])]) {
            delivered.set($0)
        }
        let start = ContinuousClock.now
        stream.reuse(batch: second, index: 0, startedSinceOrigin: start - PendingStream.origin)
        XCTAssertFalse(stream.finished)
        XCTAssertNil(stream.status)
        XCTAssertNil(stream.responseFirstHeader)
        XCTAssertEqual(stream.responseLaterHeaders, [])
        XCTAssertEqual(stream.responseBody, [])
        XCTAssertEqual(stream.streamID, 0)
        XCTAssertEqual(stream.slot, -1)
        XCTAssertFalse(stream.hasBody)
        XCTAssertEqual(stream.deadline, start + .seconds(10))
        var indexing = HeaderIndexing()
        let fields = stream.batch!.bytes.withHeaderBlock(0, indexing: &indexing) { block in
            block.map { (String(decoding: UnsafeBufferPointer(start: $0.name, count: $0.namelen), as: UTF8.self),
                         String(decoding: UnsafeBufferPointer(start: $0.value, count: $0.valuelen), as: UTF8.self)) }
        }
        XCTAssertEqual(fields.map(\.0), [":method", ":scheme", ":authority", ":path", "x-b"])
        XCTAssertEqual(fields.map(\.1), ["POST", "https", "localhost", "/second/path/longer", "2"])
        stream.finish(.success(HTTP2Response(status: 200)))
        XCTAssertEqual(delivered.value?.count, 1)
        XCTAssertEqual(try delivered.value?[0].get().status, 200)
    }
}

/// A value set from a `@Sendable` closure and read afterwards.
private final class LockedBox<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: every access holds `lock`.
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}

private extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
