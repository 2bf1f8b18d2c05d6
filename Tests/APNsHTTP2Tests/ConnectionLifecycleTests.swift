import APNsHTTP2
import XCTest

/// One connection's lifecycle, driven without sockets.
final class ConnectionLifecycleTests: XCTestCase {
    func testANewConnectionTakesRequestsBeforeAndAfterItConnects() {
        var lifecycle = ConnectionLifecycle()
        XCTAssertTrue(lifecycle.acceptsRequests)
        XCTAssertFalse(lifecycle.opensStreams, "no stream before the handshake")
        lifecycle.connected()
        XCTAssertEqual(lifecycle.state, .ready)
        XCTAssertTrue(lifecycle.opensStreams)
    }

    func testAGoAwayStopsNewRequestsAndFailsTheWaitingOnesAsNotSent() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        let action = lifecycle.goawayReceived(from: "apns", debug: "{\"reason\":\"Shutdown\"}")
        guard case let .stopAccepting(error) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(error.kind, .notSent)
        XCTAssertTrue(error.wasNotProcessed, "waiting requests are safe to send elsewhere")
        XCTAssertFalse(lifecycle.acceptsRequests)
        XCTAssertFalse(lifecycle.opensStreams)
        XCTAssertEqual(lifecycle.goawayReceived(from: "apns", debug: nil), .none, "a second GOAWAY changes nothing")
    }

    func testADrainingConnectionClosesOnlyWhenItsLastStreamIsDone() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        _ = lifecycle.shutdownRequested()
        XCTAssertEqual(lifecycle.turnEnded(openStreams: 3), .none)
        guard case .close = lifecycle.turnEnded(openStreams: 0) else { return XCTFail() }
        XCTAssertEqual(lifecycle.state, .closed)
    }

    func testAReadyConnectionWithNoStreamsStaysOpen() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        XCTAssertEqual(lifecycle.turnEnded(openStreams: 0), .none)
        XCTAssertEqual(lifecycle.state, .ready)
    }

    func testAFailureEndsOpenStreamsAsRetryableConnectionLoss() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        let action = lifecycle.failed(TransportError(.timeout, "PING unanswered"))
        guard case let .close(lost) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(lost.kind, .connectionLost)
        XCTAssertTrue(lost.isRetryable)
        XCTAssertFalse(lost.wasNotProcessed, "an in-flight stream may have been delivered")
        XCTAssertEqual(lifecycle.failed(TransportError(.connectionLost, "again")), .none)
    }

    /// nghttp2 giving up on the session (a flood, a malformed frame) is the
    /// connection's failure: the streams on it may not have been delivered
    /// and must stay retryable, not turn into a non-retryable protocol error.
    func testAFatalProtocolErrorEndsOpenStreamsAsRetryableConnectionLoss() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        let action = lifecycle.failed(TransportError(.protocolError, "nghttp2_session_mem_recv failed: Flooding was detected"))
        guard case let .close(lost) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(lost.kind, .connectionLost)
        XCTAssertTrue(lost.isRetryable)
        XCTAssertTrue(lost.detail.contains("Flooding"), lost.detail)
    }

    func testAShutdownEndsOpenStreamsAsAShutdown() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        guard case let .close(lost) = lifecycle.failed(TransportError(.shutdown, "connection shut down")) else { return XCTFail() }
        XCTAssertEqual(lost.kind, .shutdown)
    }
}
