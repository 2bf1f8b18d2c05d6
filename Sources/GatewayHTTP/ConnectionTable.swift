import Synchronization

/// The open ingest connections and the deadline of the request each one is
/// receiving: a request's headers and body must arrive within the request
/// timeout, counted from the connection's opening or from the end of the
/// previous response. libmicrohttpd's own timeout is an idle timeout, which
/// every byte resets, so a client trickling a header byte at a time
/// (slowloris) or a body that never ends would otherwise hold its
/// connection for as long as it likes.
///
/// Without I/O: the server applies the sockets it returns (shuts them down)
/// while holding the lock that guards the table, and removes a closed
/// connection under the same lock, so a socket is never touched after
/// libmicrohttpd has reported the connection closed (and may reuse the
/// descriptor). The per-request updates go to each connection's
/// `ConnectionEntry`, lock-free.
struct ConnectionTable {
    let requestTimeout: Duration
    private let origin = ContinuousClock.now
    private(set) var entries: [UInt: ConnectionEntry] = [:]

    init(requestTimeout: Duration) {
        self.requestTimeout = requestTimeout
    }

    var count: Int { entries.count }

    /// Connections whose request has begun (its target arrived) and is not
    /// yet with the handler: a body still uploading.
    var receiving: Int { entries.values.reduce(0) { $0 + ($1.isReceiving ? 1 : 0) } }

    /// A connection was accepted: its first request is due within the
    /// timeout. The entry is what the thread running its daemon updates from
    /// then on, without the table's lock.
    @discardableResult
    mutating func opened(_ connection: UInt, socket: Int32, daemon: UInt = 0, now: ContinuousClock.Instant) -> ConnectionEntry {
        let entry = ConnectionEntry(socket: socket, daemon: daemon, origin: origin, timeout: requestTimeout, now: now)
        entries[connection] = entry
        return entry
    }

    mutating func closed(_ connection: UInt) {
        entries[connection] = nil
    }

    /// The sockets of connections whose request is overdue, each returned
    /// once: the caller cuts them.
    func overdue(now: ContinuousClock.Instant) -> [Int32] {
        entries.values.compactMap { $0.cutIfOverdue(now: now) ? $0.socket : nil }
    }
}

/// One open connection's request deadline and target length, kept by the
/// thread running its daemon with atomics (no lock, no lookup per request: the
/// server finds the entry through the connection's socket context) and
/// read by the watch's sweep under the table's lock.
///
/// A request's events on one connection come in order from one thread; the
/// sweep races only with `answering`/`completed`, and the deadline's
/// compare-and-exchange decides: a request received first is not cut, and a
/// connection cut first stays cut.
final class ConnectionEntry: Sendable {
    let socket: Int32
    /// The libmicrohttpd daemon that runs the connection (its address):
    /// only that daemon's thread may call libmicrohttpd on it.
    let daemon: UInt
    private let origin: ContinuousClock.Instant
    /// The request timeout in nanoseconds (added per request as a number,
    /// not as a `Duration` to an instant).
    private let timeout: Int64
    /// Nanoseconds after `origin`; `Self.none` while the handler has the
    /// request, or once cut.
    private let deadline: Atomic<Int64>
    /// Length of the current request's target as it arrived, up to its
    /// first NUL byte (libmicrohttpd's URI log callback); -1: none yet.
    private let target = Atomic<Int>(-1)
    /// Where that target lies in libmicrohttpd's buffer (valid while the
    /// request is being received), for naming the route of an answer
    /// written before the handler sees the request.
    private let targetStart = Atomic<UInt>(0)
    /// Answered from libmicrohttpd's error log (`HTTPServer+EarlyAnswers`):
    /// nothing more may be written on the connection.
    private let early = Atomic<Bool>(false)
    private static let none = Int64.max

    init(socket: Int32, daemon: UInt = 0, origin: ContinuousClock.Instant, timeout: Duration, now: ContinuousClock.Instant) {
        self.socket = socket
        self.daemon = daemon
        self.origin = origin
        self.timeout = timeout.wholeNanoseconds
        deadline = Atomic(Self.nanoseconds(now, after: origin) + self.timeout)
    }

    /// The request was fully received (or answered early): the handler has
    /// it, and only the provider deadlines apply until it completes.
    func answering() {
        deadline.store(Self.none, ordering: .relaxed)
    }

    /// The response went out: the next request on this connection is due
    /// within the timeout.
    func completed(now: ContinuousClock.Instant) {
        target.store(-1, ordering: .relaxed)
        deadline.store(Self.nanoseconds(now, after: origin) + timeout, ordering: .relaxed)
    }

    func targetArrived(length: Int, at start: UnsafeRawPointer? = nil) {
        target.store(length, ordering: .relaxed)
        targetStart.store(UInt(bitPattern: start), ordering: .relaxed)
    }

    /// The current request's target as it arrived (nil: none yet, or
    /// none recorded); to be read only by the daemon's thread, while the
    /// request is being received.
    var targetPointer: UnsafePointer<CChar>? {
        guard target.load(ordering: .relaxed) >= 0 else { return nil }
        return UnsafePointer(bitPattern: targetStart.load(ordering: .relaxed))
    }

    /// The connection was answered outside libmicrohttpd's own answer path.
    func answerEarly() {
        early.store(true, ordering: .relaxed)
    }

    var answeredEarly: Bool { early.load(ordering: .relaxed) }

    /// A request has begun (its target arrived) and is neither with the
    /// handler nor cut.
    var isReceiving: Bool {
        target.load(ordering: .relaxed) >= 0 && deadline.load(ordering: .relaxed) != Self.none
    }

    var targetLength: Int? {
        let length = target.load(ordering: .relaxed)
        return length < 0 ? nil : length
    }

    /// True, once, when the request is overdue at `now`.
    func cutIfOverdue(now: ContinuousClock.Instant) -> Bool {
        let current = deadline.load(ordering: .relaxed)
        guard current != Self.none, current <= Self.nanoseconds(now, after: origin) else { return false }
        return deadline.compareExchange(expected: current, desired: Self.none, ordering: .relaxed).exchanged
    }

    private static func nanoseconds(_ instant: ContinuousClock.Instant, after origin: ContinuousClock.Instant) -> Int64 {
        (instant - origin).wholeNanoseconds
    }
}
