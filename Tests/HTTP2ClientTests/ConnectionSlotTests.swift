@testable import HTTP2Client
import XCTest

/// The pool's per-slot lifecycle, driven without sockets.
final class ConnectionSlotTests: XCTestCase {
    private let start = ContinuousClock.now

    func testAnEmptySlotAsksForAConnectionAndThenUsesIt() {
        var slot = ConnectionSlot<String>()
        guard case .connect = slot.action(now: start) else { return XCTFail("expected connect") }
        slot.connecting("c1")
        guard case let .use(connection) = slot.action(now: start) else { return XCTFail("expected use") }
        XCTAssertEqual(connection, "c1")
    }

    func testAFailedConnectBacksOffExponentiallyWithACap() {
        var slot = ConnectionSlot<String>(backoff: Backoff(base: .milliseconds(100), maximum: .seconds(1)))
        var delays: [Duration] = []
        for _ in 0..<6 {
            slot.connecting("c")
            slot.ended(.failedToConnect, now: start, jitter: 1)
            guard case let .waitUntil(until) = slot.action(now: start) else { return XCTFail("expected back-off") }
            delays.append(until - start)
        }
        XCTAssertEqual(delays, [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        XCTAssertEqual(slot.failures, 6)
    }

    func testJitterScalesTheDelayBetweenHalfAndAll() {
        let backoff = Backoff(base: .seconds(1), maximum: .seconds(60))
        XCTAssertEqual(backoff.delay(afterFailures: 3, jitter: 0), .seconds(2))
        XCTAssertEqual(backoff.delay(afterFailures: 3, jitter: 1), .seconds(4))
        XCTAssertEqual(backoff.delay(afterFailures: 0, jitter: 1), .zero)
    }

    func testTheSlotConnectsAgainOnceTheBackOffHasPassed() {
        var slot = ConnectionSlot<String>(backoff: Backoff(base: .seconds(1), maximum: .seconds(10)))
        slot.connecting("c")
        slot.ended(.failedToConnect, now: start, jitter: 1)
        guard case .waitUntil = slot.action(now: start + .milliseconds(999)) else { return XCTFail("still backing off") }
        guard case .connect = slot.action(now: start + .seconds(1)) else { return XCTFail("expected connect") }
    }

    func testAConnectionThatServedIsReplacedAtOnceAndResetsFailures() {
        var slot = ConnectionSlot<String>()
        slot.connecting("c1")
        slot.ended(.failedToConnect, now: start, jitter: 0)
        XCTAssertEqual(slot.failures, 1)
        slot.connecting("c2")
        slot.ended(.endedAfterUse, now: start, jitter: 0)
        XCTAssertEqual(slot.failures, 0)
        guard case .connect = slot.action(now: start) else { return XCTFail("a GOAWAY'd connection is replaced at once") }
    }

    /// A server that completes the handshake and at once sends GOAWAY or
    /// closes: each such connection counts as a failure, so the slot backs
    /// off instead of reconnecting as fast as the server closes.
    func testAConnectionThatEndsWithoutAnAnswerBacksOffLikeAFailedConnect() {
        var slot = ConnectionSlot<String>(backoff: Backoff(base: .milliseconds(100), maximum: .seconds(1)))
        var delays: [Duration] = []
        for ending in [ConnectionSlot<String>.Ending.endedWithoutAnswer, .failedToConnect, .endedWithoutAnswer] {
            slot.connecting("c")
            slot.ended(ending, now: start, jitter: 1)
            guard case let .waitUntil(until) = slot.action(now: start) else { return XCTFail("expected back-off") }
            delays.append(until - start)
        }
        XCTAssertEqual(delays, [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        slot.connecting("c")
        slot.ended(.endedAfterUse, now: start, jitter: 1)
        XCTAssertEqual(slot.failures, 0)
    }
}

/// Provider origins.
final class OriginTests: XCTestCase {
    func testParsesHostsPortsAndIPv6() throws {
        XCTAssertEqual(try Origin(url: "https://api.push.apple.com"), Origin(host: "api.push.apple.com", port: 443))
        XCTAssertEqual(try Origin(url: "https://127.0.0.1:8443/"), Origin(host: "127.0.0.1", port: 8443))
        XCTAssertEqual(try Origin(url: "https://[::1]:2197"), Origin(host: "::1", port: 2197))
    }

    func testRefusesPlainHTTPPathsAndBadPorts() {
        for url in ["http://api.push.apple.com", "https://host/3/device", "https://host:0", "https://host:99999", "https://"] {
            XCTAssertThrowsError(try Origin(url: url), url)
        }
    }
}
