import XCTest
import RedisClient

final class RedisCommandTests: XCTestCase {
    func testACommandIsAnArrayOfBulkStrings() {
        var output: [UInt8] = []
        RedisCommand("SET", "k", "").encode(into: &output)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n")
    }

    func testBinaryArgumentsAreSentByteForByte() throws {
        let payload: [UInt8] = [0, 13, 10, 255, 36, 42]
        var command = RedisCommand("SET", "k")
        command.append(payload)
        command.append(7)
        var output: [UInt8] = []
        command.encode(into: &output)
        XCTAssertEqual(output, Array("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$6\r\n".utf8) + payload + Array("\r\n$1\r\n7\r\n".utf8))
        // Read back as a reply, it is the same bytes.
        var parser = RESPParser()
        parser.append(output)
        XCTAssertEqual(try parser.next()?.array?[2], .bulkString(payload))
    }

    func testEvalCountsItsKeys() {
        let command = RedisCommand.evalSHA("abc", keys: [Array("k1".utf8), Array("k2".utf8)], arguments: [Array("a".utf8)])
        XCTAssertEqual(command.arguments.map { String(decoding: $0, as: UTF8.self) }, ["EVALSHA", "abc", "2", "k1", "k2", "a"])
        XCTAssertEqual(command.name, "EVALSHA")
    }
}
