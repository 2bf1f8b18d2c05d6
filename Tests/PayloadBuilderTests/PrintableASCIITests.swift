@testable import PayloadBuilder
import XCTest

/// `PrintableASCII.classify` reads sixteen bytes at a time for the URL and
/// FCM-token rules: it must answer as a byte-by-byte loop does, for every
/// byte value at every position of every length up to 50 bytes (vectors,
/// overlapping words and half-words, single bytes), and the
/// rules built on it must answer as they are written.
final class PrintableASCIITests: XCTestCase {
    private func reference(_ bytes: [UInt8]) -> (nonASCII: Bool, spaceOrControl: Bool) {
        (bytes.contains { $0 >= 0x80 }, bytes.contains { $0 <= 0x20 || $0 == 0x7F })
    }

    private func classify(_ bytes: [UInt8]) -> (nonASCII: Bool, spaceOrControl: Bool) {
        PrintableASCII.classify(bytes.span)
    }

    func testEveryByteAtEveryPositionIsClassifiedAsByteByByte() {
        for length in 0...50 {
            let plain = (0..<length).map { UInt8(0x21 + $0 % 94) }
            XCTAssertTrue(classify(plain) == reference(plain), "plain \(length)")
            for position in 0..<length {
                for byte in 0...255 {
                    var bytes = plain
                    bytes[position] = UInt8(byte)
                    XCTAssertTrue(classify(bytes) == reference(bytes), "\(bytes)")
                }
            }
        }
    }

    func testTheURLAndTokenRulesAnswerAsWritten() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x09, 0x20, 0x21, 0x2F, 0x41, 0x61, 0x7E, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        for _ in 0..<3000 {
            let length = Int.random(in: 0...30, using: &generator)
            let tail = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            for prefix in ["https://x", "http://", "ftp://x", ""] {
                let url = String(decoding: Array(prefix.utf8) + tail, as: UTF8.self)
                XCTAssertEqual(HTTPURL.isAbsolute(url), referenceIsAbsolute(url), url.debugDescription)
            }
            let token = String(decoding: tail, as: UTF8.self)
            let printable = !token.isEmpty && token.utf8.count <= 4096 && token.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
            XCTAssertEqual(DeviceToken.problem(with: token, platform: .fcm) == nil, printable, token.debugDescription)
        }
    }

    /// `HTTPURL.isAbsolute` as its general (scalar) path states it.
    private func referenceIsAbsolute(_ url: String) -> Bool {
        let scalars = Array(url.unicodeScalars)
        let lower = scalars.prefix(8).map { $0.isASCII ? Unicode.Scalar(UInt8(ascii: $0).lowercasedASCII) : $0 }
        let schemeLength: Int
        if lower.starts(with: "https://".unicodeScalars) {
            schemeLength = 8
        } else if lower.starts(with: "http://".unicodeScalars) {
            schemeLength = 7
        } else {
            return false
        }
        guard scalars.count > schemeLength, !["/", "?", "#"].contains(scalars[schemeLength]) else { return false }
        return url.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }
}

private extension UInt8 {
    var lowercasedASCII: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }
}
