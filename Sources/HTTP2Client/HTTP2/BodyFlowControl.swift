/// How one connection's request bodies meet the server's connection-level
/// flow-control window, as a value that is told what happened and says
/// what to do: pure (no session, no clock of its own), so that it is
/// tested without sockets. The connection carries out its answers on its
/// nghttp2 session.
///
/// Why bodies wait: with hundreds of streams open, bodies beyond the
/// window went out in pieces as the server widened it, and nghttp2 puts a
/// stream cut off at the window's edge behind all the others: its caller's
/// batch was answered last, and with every batch waiting for a straggler
/// the server ran out of whole requests. So a stream opens only while the
/// window (and `lookahead` beyond it) has room for its body
/// (`opensStream`); a body that fits one frame but not what is left of the
/// window waits whole (`defers`), and the waiting bodies go first, in the
/// order they waited, once the server widens the window (`resumable`).
/// Bodies that wait longer than `waitLimit` go cut at the window's edge
/// (`expired`): the server may be one that widens its window only once all
/// of it is used (RFC 9113 leaves when to the receiver), which a body
/// waiting for room would never do; after `forcedCutsBeforeGivingUp` such
/// waits, bodies go cut for the rest of the connection.
///
/// Loop-thread state of one connection.
struct BodyFlowControl: Equatable {
    /// Streams whose bodies wait, in the order nghttp2 asked for them.
    private(set) var deferred: [Int32] = []
    /// The window the bodies last waited at.
    private var deferredAtWindow = 0
    /// When bodies began to wait with the window not grown since.
    private var deferredSince: ContinuousClock.Instant?
    /// The server widened the connection's window since `takeWindowOpened`.
    private var windowOpened = false
    /// Bodies go cut at the window's edge, as nghttp2 would send them.
    private(set) var cutsAtWindowEdge = false
    /// Times bodies went cut after waiting too long.
    private var forcedCuts = 0
    /// The connection's last measured round trip (its PING's).
    var roundTrip: Duration?

    static let forcedCutsBeforeGivingUp = 2

    /// HTTP/2's initial flow-control window (RFC 9113 §6.9.2), which the
    /// connection's stays at until the server widens it.
    static let defaultWindow = 65_535

    /// Bodies of streams opened beyond the connection's window: half a
    /// default window, what a server widening at half its window (nghttp2,
    /// and by what clients logged, APNs) gives back at a time. Every body
    /// beyond the window is asked for and deferred again each time the
    /// window runs low, so a larger lookahead costs more work for the same
    /// rate.
    static let lookahead = defaultWindow / 2

    init() {}

    /// How long bodies wait whole for the window before they go cut: at
    /// least 100 ms, and four round trips (a WINDOW_UPDATE comes a round
    /// trip after the bytes that earned it).
    var waitLimit: Duration { max(.milliseconds(100), (roundTrip ?? .zero) * 4) }

    /// Whether a request whose body is `body` bytes may open a stream now:
    /// when `window` (the connection's flow-control window) and `lookahead`
    /// have room for it beside the bodies of open streams not yet sent
    /// (`unsent`). Always when no stream is open (nothing else would widen
    /// the window), and for a body larger than a whole default window (it
    /// goes in pieces whatever is done).
    static func opensStream(body: Int, unsent: Int, window: Int, streamsOpen: Int) -> Bool {
        body == 0 || unsent + body <= window + lookahead || streamsOpen == 0 || body > defaultWindow
    }

    /// nghttp2 asks for a body of `streamID` with the connection's window
    /// at `window`; `waitsForWindow`: the body would be cut by the window
    /// (`PendingStream.waitsForWindow`). Returns whether it waits (nghttp2
    /// is told to defer it).
    mutating func defers(_ streamID: Int32, waitsForWindow: Bool, window: Int, now: ContinuousClock.Instant) -> Bool {
        guard !cutsAtWindowEdge, waitsForWindow else { return false }
        deferred.append(streamID)
        deferredAtWindow = window
        if deferredSince == nil { deferredSince = now }
        return true
    }

    /// The server widened the connection's window.
    mutating func windowUpdated() {
        windowOpened = true
        cutsAtWindowEdge = forcedCuts >= Self.forcedCutsBeforeGivingUp
    }

    /// Whether the window was widened since this was last asked, and bodies
    /// wait for it: they should be written now, before more is read.
    mutating func takeWindowOpened() -> Bool {
        defer { windowOpened = false }
        return windowOpened && !deferred.isEmpty
    }

    /// The streams whose bodies go back to nghttp2 now that the window is
    /// `window`, in the order they waited: all of them once the window is
    /// wider than when they last waited, else none. The caller resumes
    /// them (a stream closed meanwhile is simply not resumed) and hands
    /// the emptied list back (`reuse`).
    mutating func resumable(window: Int) -> [Int32] {
        guard !deferred.isEmpty, window > deferredAtWindow else { return [] }
        return takeDeferred()
    }

    /// The streams whose bodies have waited `waitLimit` or more at `now`:
    /// they go cut at the window's edge. Report how many were resumed with
    /// `forcedCut(resumed:)`.
    mutating func expired(now: ContinuousClock.Instant) -> [Int32] {
        guard let since = deferredSince, now - since >= waitLimit, !deferred.isEmpty else { return [] }
        return takeDeferred()
    }

    /// `resumed` of the bodies `expired` gave went cut (streams closed
    /// meanwhile, timed out or refused, are not stuck): bodies go cut until
    /// the server next widens the window.
    mutating func forcedCut(resumed: Int) {
        guard resumed > 0 else { return }
        cutsAtWindowEdge = true
        forcedCuts += 1
    }

    /// A list `resumable` or `expired` gave, emptied: its storage serves
    /// the next bodies that wait.
    mutating func reuse(_ list: consuming [Int32]) {
        guard deferred.isEmpty else { return }
        var list = list
        list.removeAll(keepingCapacity: true)
        deferred = list
    }

    private mutating func takeDeferred() -> [Int32] {
        deferredSince = nil
        var taken: [Int32] = []
        swap(&taken, &deferred)
        return taken
    }
}
