@testable import PayloadBuilder
import TestSupport
import XCTest

/// `JSONEscaping`'s scans (sixteen bytes at a time, eight or four for a
/// short run, the last read overlapping) against their byte-by-byte
/// definition: from every start, a stopping byte or a near miss at every
/// position of runs of up to 70 bytes, and random bytes (fixed seed).
final class JSONEscapingScanTests: XCTestCase {
    private func reference(_ bytes: [UInt8], from start: Int, alsoNonASCII: Bool) -> Int {
        bytes[start...].firstIndex { JSONEscaping.needsEscape($0) || (alsoNonASCII && $0 >= 0x80) } ?? bytes.count
    }

    private func check(_ bytes: [UInt8], _ context: @autoclosure () -> String) {
        do {
            let buffer = bytes.span
            for start in 0...bytes.count {
                XCTAssertEqual(JSONEscaping.firstToEscape(in: buffer, from: start),
                               reference(bytes, from: start, alsoNonASCII: false), "\(context()) from \(start)")
                XCTAssertEqual(JSONEscaping.firstToEscapeOrNonASCII(in: buffer, from: start),
                               reference(bytes, from: start, alsoNonASCII: true), "\(context()) from \(start)")
            }
        }
    }

    func testEveryStopAndNearMissAtEveryPositionFromEveryStart() {
        // Stops, and the values beside them (0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0xA2, 0xDC).
        let probes: [UInt8] = [0x00, 0x1F, 0x22, 0x5C, 0x80, 0xFF, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0xA2, 0xDC]
        for length in 0...70 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            check(plain, "plain \(length)")
            for position in 0..<length {
                for probe in probes {
                    var bytes = plain
                    bytes[position] = probe
                    check(bytes, "\(probe) at \(position) of \(length)")
                }
            }
        }
    }

    func testTwoStopsInOneVectorGiveTheFirst() {
        for length in 16...40 {
            for first in 0..<length {
                for second in first..<min(length, first + 17) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[second] = 0x80
                    bytes[first] = 0x22
                    check(bytes, "stops at \(first) and \(second) of \(length)")
                }
            }
        }
    }

    func testRandomBytes() {
        var generator = SplitMix64(seed: 0x5CA9_16)  // the same bytes every run
        let alphabet: [UInt8] = [0x61, 0x61, 0x61, 0x61, 0x20, 0x7E, 0x22, 0x5C, 0x0A, 0x00, 0xC3, 0xA9, 0xFF]
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...100, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            check(bytes, "\(bytes)")
        }
    }
}
