@testable import PayloadBuilder
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
}
