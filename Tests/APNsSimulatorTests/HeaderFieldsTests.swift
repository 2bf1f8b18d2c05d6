@testable import APNsSimulator
import XCTest

/// Header fields kept as bytes read back as the Strings they always were.
final class HeaderFieldsTests: XCTestCase {
    func testFieldsReadBackAsStringsWithTheirNeverIndexedNames() {
        var request = ReceivedRequest()
        request.fields.append(name: ":path", value: "/3/device/ab", neverIndexed: true)
        request.fields.append(name: "apns-topic", value: "a", neverIndexed: false)
        [UInt8]([0x61, 0xFF]).withUnsafeBufferPointer { value in
            Array("x-bytes".utf8).withUnsafeBufferPointer { request.fields.append(name: $0, value: value, neverIndexed: true) }
        }
        XCTAssertEqual(request.headers.map(\.name), [":path", "apns-topic", "x-bytes"])
        XCTAssertEqual(request.headers.map(\.value), ["/3/device/ab", "a", "a\u{FFFD}"])
        XCTAssertEqual(request.neverIndexedNames, [":path", "x-bytes"])
        XCTAssertEqual(request.value("x-bytes"), "a\u{FFFD}")
        XCTAssertNil(request.value("apns-id"))
        request.fields.append(name: "x-\u{212A}", value: "1", neverIndexed: false)
        request.fields.append(name: "x-K", value: "2", neverIndexed: false)
        XCTAssertEqual(request.value("x-K"), "1", "canonically equivalent names are the same name, as Strings")
    }

    func testTextBytesCompareAsStringsDo() {
        func same(_ left: String, _ right: String) -> Bool {
            Array(left.utf8).withUnsafeBufferPointer { l in Array(right.utf8).withUnsafeBufferPointer { TextBytes.same(l, $0) } }
        }
        for (left, right) in [("a", "a"), ("a", "b"), ("", ""), ("K", "\u{212A}"), ("é", "e\u{301}"), ("ab", "a"), (";", "\u{37E}")] {
            XCTAssertEqual(same(left, right), left == right, "\(left) \(right)")
        }
    }
}
