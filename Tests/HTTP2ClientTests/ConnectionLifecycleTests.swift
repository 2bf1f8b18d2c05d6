@testable import HTTP2Client
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
        let action = lifecycle.goawayReceived(from: "apns", debug: "{\"reason\":\"Shutdown\"}", lastStreamID: 7)
        guard case let .stopAccepting(error) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(error.kind, .notSent)
        XCTAssertTrue(error.wasNotProcessed, "waiting requests are safe to send elsewhere")
        XCTAssertFalse(lifecycle.acceptsRequests)
        XCTAssertFalse(lifecycle.opensStreams)
        XCTAssertEqual(lifecycle.goawayReceived(from: "apns", debug: nil, lastStreamID: 5), .none, "a second GOAWAY changes nothing")
    }

    /// The server may close right after answering the streams up to a
    /// GOAWAY's last stream id, before nghttp2 has written or refused the
    /// requests still queued above it. Those were not processed: refused,
    /// safe to send elsewhere, not a lost connection (17 of 10,000 in 1 of
    /// 20 runs of the resilience test ended so).
    func testStreamsAboveAGoAwaysLastStreamIDEndAsRefusedWhenTheServerCloses() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.connected()
        _ = lifecycle.goawayReceived(from: "apns", debug: nil, lastStreamID: 2001)
        _ = lifecycle.goawayReceived(from: "apns", debug: nil, lastStreamID: 2003)
        XCTAssertEqual(lifecycle.goAwayLastStreamID, 2001, "a later GOAWAY never raises the last stream id")
        guard case let .close(lost) = lifecycle.failed(TransportError(.connectionLost, "server closed the connection")) else {
            return XCTFail()
        }
        let above = lifecycle.failure(ofStream: 2003, lost: lost)
        XCTAssertEqual(above.kind, .refused)
        XCTAssertTrue(above.wasNotProcessed)
        XCTAssertEqual(lifecycle.failure(ofStream: 2001, lost: lost), lost, "up to the last id it may have been processed")

        var noGoAway = ConnectionLifecycle()
        noGoAway.connected()
        XCTAssertEqual(noGoAway.failure(ofStream: 9, lost: lost), lost)
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
