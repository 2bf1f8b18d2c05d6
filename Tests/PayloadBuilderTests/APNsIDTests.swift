@testable import PayloadBuilder
import XCTest

/// `APNsID` writes its digits eight at a time from a word (no table, no
/// loop per digit); the whole id is checked digit by digit in
/// `SHA256Tests`, and the word itself here.
final class APNsIDTests: XCTestCase {
    /// Eight digits at once, against `String(_:radix:)` padded to eight:
    /// every digit value in every position, the ends, and a spread of others.
    func testEightHexDigitsInAWordMatchStringRadix() {
        var values: [UInt32] = [0, 1, 9, 10, 15, 16, 0x9999_9999, 0xAAAA_AAAA, 0xFFFF_FFFF, 0x8000_0000, 0x0123_4567, 0x89AB_CDEF]
        for digit in UInt32(0)...15 {
            for position in 0..<8 { values.append(digit << UInt32(position * 4)) }
        }
        var state: UInt32 = 0x9E37_79B9
        for _ in 0..<2_000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            values.append(state)
        }
        for value in values {
            let word = APNsID.hexDigits(of: value).bigEndian
            let digits = withUnsafeBytes(of: word) { String(decoding: $0, as: UTF8.self) }
            let expected = String(repeating: "0", count: 8 - String(value, radix: 16).count) + String(value, radix: 16)
            XCTAssertEqual(digits, expected)
        }
    }

    /// The dedup window takes `ABCD…` and `abcd…` for one device; so does
    /// the id, which a re-send in other capitals keeps.
    func testATokenInCapitalsHasTheSameIdAsInLowercase() {
        let ids = APNsID(eventID: "c1:m1")
        let lower = "0123456789abcdef" + String(repeating: "a1", count: 24)
        XCTAssertEqual(ids.id(token: lower.uppercased()), ids.id(token: lower))
        XCTAssertEqual(ids.id(token: "0123456789AbCdEf" + lower.dropFirst(16)), ids.id(token: lower))
        XCTAssertNotEqual(ids.id(token: "1" + lower.dropFirst()), ids.id(token: lower))
    }
}
