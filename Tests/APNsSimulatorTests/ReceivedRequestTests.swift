@testable import APNsSimulator
import XCTest

/// How a received request's header fields are read.
final class ReceivedRequestTests: XCTestCase {
    func testOnlyARepeatedRegularHeaderIsADuplicate() {
        func index(_ request: ReceivedRequest) -> APNsHeaderIndex {
            request.fields.bytes.withUnsafeBufferPointer { APNsHeaderIndex(request.fields, bytes: $0) }
        }
        var request = ReceivedRequest()
        request.headers = [(":method", "POST"), (":path", "/3/device/ab"), ("apns-topic", "a"), ("apns-id", "b"), ("x-a", "1")]
        XCTAssertFalse(index(request).hasDuplicate)
        XCTAssertEqual(index(request)[.topic], 2)
        request.headers.append((":method", "GET"))
        XCTAssertFalse(index(request).hasDuplicate, "pseudo-headers are not counted")
        XCTAssertEqual(index(request)[.method], 0, "the first is read")
        request.headers.append(("apns-priority", "10"))
        request.headers.append(("apns-topic", "c"))
        XCTAssertTrue(index(request).hasDuplicate)
        XCTAssertEqual(index(request)[.topic], 2)
        XCTAssertEqual(request.value("apns-topic"), "a")
        request.headers = [("x-\u{212A}", "1"), ("x-b", "2"), ("x-K", "3")]
        XCTAssertTrue(index(request).hasDuplicate, "names compare as Strings")
        request.headers = [("x-\u{212A}", "1"), ("x-k", "2")]
        XCTAssertFalse(index(request).hasDuplicate)
    }
}

/// A header block split over CONTINUATION frames reaches the checks whole.
final class SimulatorHeaderBlockTests: XCTestCase {
    func testFieldsAfterAContinuationFrameAreSeen() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        // Far more than one 16 KiB frame of HPACK literals.
        let padding = (0..<4).map { ("x-padding-\($0)", String(repeating: "p", count: 8_000)) }
        var long = fixture.request()
        long.headers = padding + long.headers
        var duplicated = long
        duplicated.headers.append(("apns-topic", SimTestFixture.topic))
        let responses = client.send([long, duplicated, fixture.request()])
        XCTAssertEqual(responses.map(\.status), [200, 400, 200])
        XCTAssertEqual(responses[1].reason, "DuplicateHeaders")
    }
}

/// A request with more header fields than the simulator keeps is refused
/// whole, never validated on what was kept.
final class SimulatorHeaderLimitTests: XCTestCase {
    func testARequestOverTheHeaderFieldLimitIsResetAndTheConnectionGoesOn() throws {
        let fixture = try SimTestFixture()
        let client = try fixture.client()
        XCTAssertEqual(client.send(fixture.request()).status, 200)
        let fillers = (0..<260).map { ("x-fill-\($0)", "v") }
        var over = fixture.request()
        over.headers += fillers + [("apns-topic", "other.topic"), ("apns-push-type", "background"), ("apns-priority", "10")]
        let refused = client.send(over)
        XCTAssertNil(refused.status, "no answer from a truncated header list")
        XCTAssertTrue(refused.closed)
        XCTAssertEqual(refused.resetCode, 2, "RST_STREAM INTERNAL_ERROR")
        var within = fixture.request()
        within.headers += (0..<200).map { ("x-fill-\($0)", "v") }
        XCTAssertEqual(client.send(within).status, 200, "the connection and the limit's own side still work")
        XCTAssertEqual(fixture.simulator.statistics.acceptedTotal, 2)
    }
}
