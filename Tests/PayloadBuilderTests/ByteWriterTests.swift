@testable import PayloadBuilder
import TestSupport
import XCTest

/// The growable buffer the templates and the compact report are built in:
/// it must keep every byte across growth and write JSON exactly as the
/// `[UInt8]` appenders and `JSONWriter` do.
final class ByteWriterTests: XCTestCase {
    func testKeepsEveryByteAcrossGrowth() {
        var writer = ByteWriter(capacity: 1)
        var expected: [UInt8] = []
        for index in 0..<1000 {
            let byte = UInt8(truncatingIfNeeded: index)
            writer.append(byte)
            expected.append(byte)
            if index % 7 == 0 {
                let run = [UInt8](repeating: byte, count: index % 150)
                writer.append(run)
                expected += run
                writer.append(run[...])
                expected += run
            }
        }
        writer.appendLiteral("end")
        expected += Array("end".utf8)
        XCTAssertEqual(writer.bytes, expected)
        XCTAssertEqual(writer.count, expected.count)
        XCTAssertEqual(writer.bytes(3..<10), Array(expected[3..<10]))
    }

    func testWritesStringsMembersAndNumbersLikeTheOtherWriters() {
        let texts = ["", "plain", "q\"b\\s/c\u{1}n\nt\té👋\u{7F}", String(repeating: "ab\"", count: 100)]
        for text in texts {
            var writer = ByteWriter(capacity: 8)
            writer.appendJSONString(text)
            XCTAssertEqual(writer.bytes, JSONWriter.escaped(text), text.debugDescription)
            var member = ByteWriter(capacity: 8)
            member.appendMember(dynamicKey: text, text)
            member.append(UInt8(ascii: ","))
            member.appendMember("key", text)
            XCTAssertEqual(member.bytes, JSONWriter.escaped(text) + [0x3A] + JSONWriter.escaped(text)
                + Array(#","key":"#.utf8) + JSONWriter.escaped(text))
        }
        for number: Int64 in [0, 7, -7, 10, 1_767_225_600, .max, .min] {
            var writer = ByteWriter(capacity: 1)
            writer.appendDecimal(number)
            XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), String(number))
        }
    }

    /// Decimals are written two digits at a time into room made for their
    /// exact length: every length, at and around each power of ten, both
    /// signs and the extremes, into a writer that must grow, give `String`'s digits.
    func testWritesEveryLengthOfDecimalLikeString() {
        var numbers: [Int64] = [0, 1, 9, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 1...18 {  // 10^18 is the last power of ten an Int64 holds
            power *= 10
            numbers += [power - 1, power, power + 1, power / 2, power - power / 10]
        }
        var generator = SplitMix64(seed: 0x5EED_DEC1)  // the same numbers every run
        numbers += (0..<200).map { _ in Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...62, using: &generator) }
        for number in numbers + numbers.map({ $0 == .min ? .max : -$0 }) {
            var writer = ByteWriter(capacity: 1)
            writer.append(UInt8(ascii: "["))
            writer.appendDecimal(number)
            writer.append(UInt8(ascii: "]"))
            XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), "[\(number)]")
        }
    }

    /// Escaping lends the string in place and copies runs of up to 16 bytes
    /// with word moves: strings of every short length, with an escapable
    /// byte or UTF-8 at every position, written into buffers that must grow,
    /// give exactly `JSONWriter`'s bytes.
    func testEscapesEveryShortLengthAndPositionLikeJSONWriter() {
        let specials = ["\"", "\\", "\n", "\u{1}", "é", "👋"]
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: "a", count: length)
                    if length > 0 { characters[position] = special }
                    let text = characters.joined()
                    for capacity in [1, 512] {
                        var writer = ByteWriter(capacity: capacity)
                        writer.appendLiteral("x")
                        writer.appendJSONString(text)
                        writer.appendJSONStringContent(text)
                        XCTAssertEqual(writer.bytes, [UInt8(ascii: "x")] + JSONWriter.escaped(text)
                            + JSONWriter.escaped(text).dropFirst().dropLast(), text.debugDescription)
                    }
                }
            }
        }
    }

    /// Raw runs of every length up to three words land whole, at any offset.
    func testCopiesRunsOfEveryShortLength() {
        for offset in 0..<9 {
            for length in 0...48 {
                let prefix = [UInt8](repeating: 0xEE, count: offset)
                let run = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
                var writer = ByteWriter(capacity: 1)
                writer.append(prefix)
                writer.append(run)
                writer.append(run[...])
                XCTAssertEqual(writer.bytes, prefix + run + run, "offset \(offset), length \(length)")
            }
        }
    }

    func testCopyingWrittenBytesSurvivesGrowth() {
        var writer = ByteWriter(capacity: 1)
        var expected: [UInt8] = []
        for index in 0..<300 {
            let byte = UInt8(truncatingIfNeeded: index)
            writer.append(byte)
            expected.append(byte)
            let range = (index / 3)..<min(index + 1, index / 3 + index % 40)
            writer.appendCopy(of: range)
            expected += expected[range]
        }
        XCTAssertEqual(writer.bytes, expected)
    }

    /// Written in place when the estimate holds, copied once when it does not:
    /// the same bytes either way, for estimates from far too small to ample.
    func testWritingIntoAnEstimatedArrayGivesTheSameBytesWhateverTheEstimate() {
        let pieces = (0..<200).map { String(repeating: "p\"é", count: $0 % 13) }
        var expected = ByteWriter(capacity: 1)
        for piece in pieces { expected.appendJSONString(piece) }
        for estimate in [0, 1, 63, 64, 65, 500, expected.count - 1, expected.count, expected.count + 1, 100_000] {
            let written = [UInt8](estimatedCount: estimate) { out in
                for piece in pieces { out.appendJSONString(piece) }
            }
            XCTAssertEqual(written, expected.bytes, "estimate \(estimate)")
        }
    }
}
