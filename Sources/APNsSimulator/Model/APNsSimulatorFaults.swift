/// Connection-level misbehaviour to inject, changeable while the simulator
/// runs (`APNsSimulator.setFaults(_:)`).
///
/// Counts are per connection and count requests whose last frame arrived
/// (END_STREAM). Each setting is read when a request completes, so a change
/// applies to the next request on every open connection.
public struct APNsSimulatorFaults: Sendable, Equatable {
    /// After this many requests on a connection, send GOAWAY (NO_ERROR, debug
    /// data `{"reason":"Shutdown"}`) whose last-stream-id is the highest
    /// processed stream; later streams are neither processed nor answered, and
    /// the connection closes once the processed ones are answered. `0`
    /// sends GOAWAY (last-stream-id 0) right after the handshake and closes:
    /// a server that accepts connections and serves none.
    public var goAwayAfterStreams: Int?
    /// After this many requests on a connection, the next request is not
    /// answered: when it completes, the TCP connection is closed at once,
    /// mid-stream, with no GOAWAY and no TLS close_notify. Answers already
    /// due for earlier requests are sent first; requests that arrive with
    /// or after the dropped one are not processed. `0` drops at the first request.
    public var dropConnectionAfterStreams: Int?
    /// Every answer is held back this long after its request completed.
    public var responseDelay: Duration
    /// Accept requests but never answer them (for client timeouts). They are
    /// counted in `APNsSimulatorStatistics.unansweredStreams`.
    public var silent: Bool
    /// This long after the handshake (`.zero`: right after its SETTINGS),
    /// send a PING frame whose payload is 7 bytes instead of 8: a connection
    /// error (FRAME_SIZE_ERROR) for any HTTP/2 client, after which its
    /// session ignores all input and refuses every stream. The simulator
    /// then answers nothing more, ignores all input and keeps the connection
    /// open until the client closes it, as a broken server would. Read when
    /// a connection is accepted.
    public var malformedFrameAfter: Duration?
    /// Widen the connection's flow-control window (WINDOW_UPDATE) only once
    /// the client has used all of it, not when half is used as nghttp2 (and,
    /// by what clients logged, APNs) does: a legal policy, RFC 9113 leaves
    /// when to the receiver. A client that holds a body back until the
    /// window has room for it whole waits for ever. Read when a connection
    /// is accepted. Counts the DATA frames the simulator receives: not for
    /// tests that also make nghttp2 drop DATA (streams reset for their
    /// header size, beyond a GOAWAY, refused before SETTINGS), nor for
    /// bodies over 64 KiB (stream windows are not widened under it).
    public var widensWindowOnlyWhenUsedUp: Bool

    /// No faults unless given.
    public init(
        goAwayAfterStreams: Int? = nil,
        dropConnectionAfterStreams: Int? = nil,
        responseDelay: Duration = .zero,
        silent: Bool = false,
        malformedFrameAfter: Duration? = nil,
        widensWindowOnlyWhenUsedUp: Bool = false
    ) {
        self.goAwayAfterStreams = goAwayAfterStreams
        self.dropConnectionAfterStreams = dropConnectionAfterStreams
        self.responseDelay = responseDelay
        self.silent = silent
        self.malformedFrameAfter = malformedFrameAfter
        self.widensWindowOnlyWhenUsedUp = widensWindowOnlyWhenUsedUp
    }

    /// No faults at all.
    public static let none = APNsSimulatorFaults()
}
