import OpenSSLCrypto
import XCTest

final class SecureRandomTests: XCTestCase {
    func testDrawsHaveTheAskedLengthAndDiffer() throws {
        XCTAssertEqual(try SecureRandom.bytes(0), [])
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        XCTAssertEqual(first.count, 32)
        XCTAssertNotEqual(first, second)
        XCTAssertThrowsError(try SecureRandom.bytes(-1))
    }
}
