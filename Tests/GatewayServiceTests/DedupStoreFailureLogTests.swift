@testable import GatewayService
import PayloadBuilder
import PushGWSync
import TestSupport
import XCTest

/// A dedup store that is down fails every event: its failures are all
/// counted, and logged once per operation per interval with the count.
final class DedupStoreFailureLogTests: XCTestCase {
    func testFailuresAreCountedAndLoggedOncePerOperationPerInterval() throws {
        let lines = Locked<[String]>([])
        let clock = TestClock()
        let registry = MetricsRegistry()
        let log = DedupStoreFailureLog(registry, logger: Logger(minimumLevel: .info, sink: { bytes in
            lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }), interval: .seconds(10), now: { clock.instant })
        let down = DedupStoreFailure(.unreachable, "connection refused")
        for _ in 0..<5 { log.failed(.claim, down, consequence: "refused") }
        log.failed(.record, down, consequence: "answered")
        XCTAssertEqual(lines.withLock { $0.count }, 2, "one line per operation at first")
        clock.advance(by: .seconds(11))
        log.failed(.claim, down, consequence: "refused")
        let logged = lines.withLock { $0 }
        XCTAssertEqual(logged.count, 3)
        let last = try JSONParser.parse(Array(logged[2].utf8))
        XCTAssertEqual(last["operation"], .string("claim"))
        XCTAssertEqual(last["reason"], .string("unreachable"))
        XCTAssertEqual(last["count"], .string("5"), "the four held back and this one")
        XCTAssertEqual(registry.value(GatewayMetrics.dedupStoreErrors, ["claim"]), 6)
        XCTAssertEqual(registry.value(GatewayMetrics.dedupStoreErrors, ["record"]), 1)
    }
}
