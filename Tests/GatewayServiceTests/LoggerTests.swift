@testable import GatewayService
import PayloadBuilder
import Synchronization
import XCTest

/// JSON-lines logging: the line's shape, the timestamp, and fields that cost
/// nothing below the minimum level.
final class LoggerTests: XCTestCase {
    private final class Lines: Sendable {
        let lines = Mutex<[[UInt8]]>([])
        func append(_ line: [UInt8]) { lines.withLock { $0.append(line) } }
        var all: [[UInt8]] { lines.withLock { $0 } }
    }

    func testALineIsOneJSONObjectWithTimestampLevelMessageAndFields() throws {
        let sink = Lines()
        let logger = Logger(minimumLevel: .info, sink: { sink.append($0) })
        logger.warning("delivery failed", [("platform", "apns"), ("token", Logger.redact(token: "abcdef0123456789"))])
        let line = try XCTUnwrap(sink.all.first)
        XCTAssertEqual(line.last, 0x0A)
        let object = try JSONParser.parse(Array(line.dropLast()))
        XCTAssertEqual(object["level"], .string("warning"))
        XCTAssertEqual(object["msg"], .string("delivery failed"))
        XCTAssertEqual(object["platform"], .string("apns"))
        XCTAssertEqual(object["token"], .string("abcdef01…"))
        guard case let .string(timestamp)? = object["ts"] else { return XCTFail("no ts") }
        XCTAssertNotNil(timestamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/), timestamp)
    }

    func testTheTimestampIsTodayInUTC() {
        let formatter = ISO8601DateFormatter()  // yyyy-MM-ddTHH:mm:ssZ, UTC
        let before = String(formatter.string(from: Date()).prefix(13))
        let ours = String(Logger.timestamp().prefix(13))
        let after = String(formatter.string(from: Date()).prefix(13))
        XCTAssertTrue(ours == before || ours == after, "same date and hour: \(ours) vs \(before)")
    }

    func testFieldsAreNotWorkedOutBelowTheMinimumLevel() {
        let sink = Lines()
        let logger = Logger(minimumLevel: .error, sink: { sink.append($0) })
        let evaluated = Atomic<Int>(0)
        func fields() -> [(String, String)] {
            evaluated.add(1, ordering: .relaxed)
            return [("k", "v")]
        }
        logger.info("event", fields())
        logger.warning("event", fields())
        XCTAssertEqual(evaluated.load(ordering: .relaxed), 0)
        XCTAssertTrue(sink.all.isEmpty)
        logger.error("event", fields())
        XCTAssertEqual(evaluated.load(ordering: .relaxed), 1)
        XCTAssertEqual(sink.all.count, 1)
    }

    func testLevelsAreOrdered() {
        XCTAssertLessThan(Logger.Level.debug, .info)
        XCTAssertLessThan(Logger.Level.info, .warning)
        XCTAssertLessThan(Logger.Level.warning, .error)
        XCTAssertFalse(Logger.Level.error < .error)
    }
}
