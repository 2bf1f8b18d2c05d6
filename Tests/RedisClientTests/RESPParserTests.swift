import XCTest
import RedisClient

final class RESPParserTests: XCTestCase {
    /// Every kind of reply, nested, with a CRLF inside a bulk string and both nulls.
    static let stream = Array((
        "+OK\r\n" + "-WRONGTYPE Operation against a key\r\n" + ":-42\r\n" + "$5\r\na\r\nbc\r\n" + "$0\r\n\r\n" + "$-1\r\n"
            + "*-1\r\n" + "*0\r\n" + "*3\r\n:1\r\n*2\r\n$1\r\nx\r\n*1\r\n-ERR inner\r\n$-1\r\n" + ":9223372036854775807\r\n"
    ).utf8)
    static let expected: [RESPValue] = [
        .simpleString("OK"), .error("WRONGTYPE Operation against a key"), .integer(-42), .bulkString(Array("a\r\nbc".utf8)),
        .bulkString([]), .null, .null, .array([]),
        .array([.integer(1), .array([.bulkString([UInt8(ascii: "x")]), .array([.error("ERR inner")])]), .null]),
        .integer(.max),
    ]

    private func parseAll(_ chunks: [ArraySlice<UInt8>], limits: RESPParserLimits = RESPParserLimits()) throws -> [RESPValue] {
        var parser = RESPParser(limits: limits)
        var values: [RESPValue] = []
        for chunk in chunks {
            parser.append(chunk)
            while let value = try parser.next() { values.append(value) }
        }
        XCTAssertTrue(parser.isIdle)
        return values
    }

    func testTheWholeStreamInOneChunkGivesEveryReplyInOrder() throws {
        XCTAssertEqual(try parseAll([Self.stream[...]]), Self.expected)
    }

    func testTheStreamSplitAtEveryPointGivesTheSameReplies() throws {
        for split in 0 ... Self.stream.count {
            XCTAssertEqual(try parseAll([Self.stream[..<split], Self.stream[split...]]), Self.expected, "split at \(split)")
        }
    }

    func testTheStreamFedOneByteAtATimeGivesTheSameReplies() throws {
        XCTAssertEqual(try parseAll(Self.stream.indices.map { Self.stream[$0 ... $0] }), Self.expected)
    }

    func testAnIncompleteReplyWaitsForMoreBytes() throws {
        var parser = RESPParser()
        parser.append(Array("*2\r\n$3\r\nfoo\r\n$3\r\nba".utf8))
        XCTAssertNil(try parser.next())
        XCTAssertFalse(parser.isIdle)
        parser.append(Array("r\r\n".utf8))
        XCTAssertEqual(try parser.next(), .array([.bulkString(Array("foo".utf8)), .bulkString(Array("bar".utf8))]))
        XCTAssertNil(try parser.next())
    }

    func testABulkStringOverTheLimitIsRefusedFromItsHeader() {
        var parser = RESPParser(limits: RESPParserLimits(maximumBulkLength: 10))
        parser.append(Array("$11\r\n".utf8))
        XCTAssertThrowsError(try parser.next())
        var fits = RESPParser(limits: RESPParserLimits(maximumBulkLength: 10))
        fits.append(Array("$10\r\n0123456789\r\n".utf8))
        XCTAssertEqual(try fits.next(), .bulkString(Array("0123456789".utf8)))
    }

    func testAnArrayOverTheCountLimitIsRefused() {
        var parser = RESPParser(limits: RESPParserLimits(maximumArrayCount: 3))
        parser.append(Array("*4\r\n".utf8))
        XCTAssertThrowsError(try parser.next())
    }

    func testArraysNestedDeeperThanTheLimitAreRefused() throws {
        var parser = RESPParser(limits: RESPParserLimits(maximumDepth: 3))
        parser.append(Array(("*1\r\n*1\r\n*1\r\n:1\r\n").utf8))
        XCTAssertEqual(try parser.next(), .array([.array([.array([.integer(1)])])]))
        parser.append(Array(String(repeating: "*1\r\n", count: 4).utf8))
        XCTAssertThrowsError(try parser.next())
    }

    func testALineLongerThanTheLimitIsRefusedBeforeItsEndArrives() {
        var parser = RESPParser(limits: RESPParserLimits(maximumLineLength: 8))
        parser.append(Array("+0123456789".utf8))
        XCTAssertThrowsError(try parser.next())
    }

    func testMalformedRepliesAreProtocolErrors() {
        for bad in ["?x\r\n", ":12a\r\n", ":\r\n", "$-2\r\n", "*-5\r\n", "$3\r\nabcd\r\n", "+OK\rX", "\r\n", ":99999999999999999999\r\n"] {
            var parser = RESPParser()
            parser.append(Array(bad.utf8))
            XCTAssertThrowsError(try parser.next(), bad.debugDescription)
        }
    }

    func testConsumedBytesAreLetGoOf() throws {
        var parser = RESPParser()
        for _ in 0 ..< 10_000 {
            parser.append(Array("+PONG\r\n".utf8))
            XCTAssertEqual(try parser.next(), .simpleString("PONG"))
        }
        XCTAssertEqual(parser.bufferedByteCount, 0)
    }
}
