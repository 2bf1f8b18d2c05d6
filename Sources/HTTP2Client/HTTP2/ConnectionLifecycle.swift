/// The life of one HTTP/2 connection as a value-type state machine: given
/// what just happened, it says what the event loop must do. Pure (no
/// sockets, no clock), so GOAWAY, shutdown and failure are tested alone.
///
/// connecting → ready → draining (GOAWAY or shutdown: no new streams, the
/// open ones finish) → closed; any failure → closed.
public struct ConnectionLifecycle: Sendable, Equatable {
    /// Where the connection is in its life (the stages above).
    public enum State: Sendable, Equatable {
        case connecting
        case ready
        /// No new streams; waiting for the open ones to finish.
        case draining(because: String)
        case closed
    }

    /// What the loop must do.
    public enum Action: Sendable, Equatable {
        case none
        /// Stop taking requests; end the ones not yet submitted with this
        /// error (they were never sent, so the pool re-sends them elsewhere).
        case stopAccepting(failWaiting: TransportError)
        /// Close the connection; streams still open end with this error.
        case close(failInFlight: TransportError)
    }

    public private(set) var state: State = .connecting
    /// The owner asked the connection to stop: the connection winds down
    /// its own way (finishing its streams), whatever the session says.
    public private(set) var shutdownAsked = false
    /// The last stream id of the GOAWAY received (the lowest, if several):
    /// the server processed no stream above it (RFC 9113 §6.8).
    public private(set) var goAwayLastStreamID: Int32?

    public init() {}

    public var acceptsRequests: Bool {
        switch state {
        case .connecting, .ready: return true
        case .draining, .closed: return false
        }
    }

    /// May new streams be opened now?
    public var opensStreams: Bool { state == .ready }

    public mutating func connected() {
        if state == .connecting { state = .ready }
    }

    /// The server sent GOAWAY: streams above its last stream id were refused
    /// by nghttp2 already (or will be, if still queued); the rest may finish.
    public mutating func goawayReceived(from host: String, debug: String?, lastStreamID: Int32) -> Action {
        goAwayLastStreamID = min(goAwayLastStreamID ?? lastStreamID, lastStreamID)
        return drain(because: "\(host) sent GOAWAY\(debug.map { " (\($0))" } ?? "")")
    }

    /// How a stream still open when the connection closes ends: one above a
    /// GOAWAY's last stream id was not processed, so it is refused (safe to
    /// send elsewhere), even when nghttp2 had not yet written or refused it
    /// when the server closed; any other ends with `lost`.
    public func failure(ofStream streamID: Int32, lost: TransportError) -> TransportError {
        guard let last = goAwayLastStreamID, streamID > last else { return lost }
        return TransportError(.refused, "stream \(streamID) above GOAWAY's last stream id \(last): not processed")
    }

    /// The owner asked the connection to stop.
    public mutating func shutdownRequested() -> Action {
        shutdownAsked = true
        return drain(because: "connection shutting down")
    }

    /// End of a loop turn: a draining connection with no open stream closes.
    public mutating func turnEnded(openStreams: Int) -> Action {
        guard case .draining = state, openStreams == 0 else { return .none }
        state = .closed
        return .close(failInFlight: TransportError(.shutdown, "connection drained"))
    }

    /// The socket, TLS or HTTP/2 failed: close; open streams may or may not
    /// have been processed, so they end as `connectionLost` (retryable), even
    /// when the cause was a protocol error (nghttp2 refusing a flood or a
    /// malformed frame is the connection's fault, not the request's). Only
    /// a shutdown stays a shutdown.
    public mutating func failed(_ error: TransportError) -> Action {
        guard state != .closed else { return .none }
        state = .closed
        let lost = error.kind == .connectionLost || error.kind == .shutdown
            ? error : TransportError(.connectionLost, "\(error.kind): \(error.detail)")
        return .close(failInFlight: lost)
    }

    private mutating func drain(because reason: String) -> Action {
        switch state {
        case .connecting, .ready:
            state = .draining(because: reason)
            return .stopAccepting(failWaiting: TransportError(.notSent, reason))
        case .draining, .closed:
            return .none
        }
    }
}
