@testable import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import PushGWSync
import TestSupport
import XCTest

/// Refused requests reach the log (a 401 or an invalid event is worth a
/// line to the operator), a line per error code per interval with the
/// count, never the token.
final class RefusalLogTests: XCTestCase {
    func testRefusalsAreLoggedOncePerCodePerIntervalWithTheirCount() throws {
        let lines = Locked<[String]>([])
        let clock = TestClock()
        let log = RefusalLog(logger: Logger(minimumLevel: .info, sink: { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }),
                             interval: .seconds(10), now: { clock.instant })
        let unauthorized = HTTPResponse(status: 401, body: EventError(.unauthorized, field: nil, "send a token").jsonBody)
        let invalid = HTTPResponse(status: 400, body: EventError(.invalidEvent, field: "message.kind", "unknown kind").jsonBody)
        for _ in 0..<5 { log.refused(route: "/v1/notify", unauthorized) }
        log.refused(route: "/v1/render", invalid)
        XCTAssertEqual(lines.withLock { $0.count }, 2, "one line per code at first")
        clock.advance(by: .seconds(11))
        log.refused(route: "/v1/notify", unauthorized)
        let logged = lines.withLock { $0 }
        XCTAssertEqual(logged.count, 3)
        let last = try JSONParser.parse(Array(logged[2].utf8))
        XCTAssertEqual(last["code"], .string("unauthorized"))
        XCTAssertEqual(last["count"], .string("5"), "the four held back and this one")
        XCTAssertEqual(last["route"], .string("/v1/notify"))
        let second = try JSONParser.parse(Array(logged[1].utf8))
        XCTAssertEqual(second["last_field"], .string("message.kind"), "the field of the request that wrote the line")
        XCTAssertFalse(logged.joined().contains("send a token"), "no message text (it may quote what was sent)")
    }

    func testSuccessesAndServerErrorsAreNotRefusals() {
        let lines = Locked<[String]>([])
        let log = RefusalLog(logger: Logger(minimumLevel: .debug, sink: { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }))
        log.refused(route: "/healthz", HTTPResponse(status: 200, body: Array("{}".utf8)))
        log.refused(route: "/v1/notify", HTTPResponse(status: 502, body: Array("{}".utf8)))
        XCTAssertTrue(lines.withLock { $0.isEmpty })
    }
}
