@testable import APNsSimulator
import CNGHTTP2
import XCTest

/// The simulator's response headers: a value new in every response is never
/// indexed (it would only churn both HPACK tables), the rest may be.
final class HeaderBlockTests: XCTestCase {
    func testTheApnsIdIsNeverIndexedAndTheOtherHeadersMayBe() {
        let fields = [(name: "apns-id", value: "6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c"), (name: "content-type", value: "application/json"),
                      (name: "apns-unique-id", value: "a1b2c3d4-0000-4000-8000-000000000000")]
        let seen: [(String, String, UInt8)] = HeaderBlock.with(status: 400, fields) { headers, count in
            (0..<count).map { index in
                let header = headers[index]
                return (String(decoding: UnsafeBufferPointer(start: header.name, count: header.namelen), as: UTF8.self),
                        String(decoding: UnsafeBufferPointer(start: header.value, count: header.valuelen), as: UTF8.self),
                        header.flags)
            }
        }
        let none = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue), never = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        XCTAssertEqual(seen.map(\.0), [":status", "apns-id", "content-type", "apns-unique-id"])
        XCTAssertEqual(seen.map(\.1), ["400"] + fields.map(\.value))
        XCTAssertEqual(seen.map(\.2), [none, never, none, never])
    }
}
