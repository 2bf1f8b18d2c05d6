@testable import PayloadBuilder
import XCTest

/// The APNs token's hex check reads eight bytes at a time: it must agree
/// with the byte rule for every byte value at every position of every
/// length, and on random runs.
final class HexDigitsTests: XCTestCase {
    private static func byteLoop(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy(HexDigits.isHexDigit)
    }

    private static func fast(_ bytes: [UInt8]) -> Bool {
        HexDigits.all(bytes.span)
    }

    func testEveryByteAtEveryPositionOfEveryLength() {
        let digits = Array("0123456789abcdefABCDEF".utf8)
        for length in 0...80 {
            let clean = (0..<length).map { digits[$0 % digits.count] }
            XCTAssertTrue(Self.fast(clean), "length \(length)")
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = clean
                    bytes[position] = UInt8(value)
                    XCTAssertEqual(Self.fast(bytes), Self.byteLoop(bytes), "length \(length), byte \(value) at \(position)")
                }
            }
        }
    }

    func testRandomRunsAgreeWithTheByteRule() {
        var generator = SystemRandomNumberGenerator()
        let nearDigits: [UInt8] = Array(0x2E...0x3B) + Array(0x3F...0x48) + Array(0x5E...0x68) + [0x10, 0x19, 0xB0, 0xE1, 0xC6]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...210, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? Array("0123456789abcdefABCDEF".utf8).randomElement(using: &generator)!
                    : nearDigits.randomElement(using: &generator)!
            }
            XCTAssertEqual(Self.fast(bytes), Self.byteLoop(bytes), "\(bytes)")
        }
    }

    func testAPNsTokenRuleReadsTheSameDigits() {
        let token = String(repeating: "0123456789abcdefABCDEF", count: 3).prefix(64)
        XCTAssertNil(DeviceToken.problem(with: String(token), platform: .apns))
        for bad in ["g", "G", " ", "\u{10}", "\u{19}", "é", "@", "`", "/", ":"] {
            let broken = String(token.dropLast()) + bad
            if broken.utf8.count == 64 {
                XCTAssertEqual(DeviceToken.problem(with: broken, platform: .apns), "an APNs token holds hex digits only (0-9, a-f)", bad)
            }
        }
    }
}
