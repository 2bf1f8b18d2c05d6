/// The open ingest connections and the deadline of the request each one is
/// receiving: a request's headers and body must arrive within the request
/// timeout, counted from the connection's opening or from the end of the
/// previous response. libmicrohttpd's own timeout is an idle timeout, which
/// every byte resets, so a client trickling a header byte at a time
/// (slowloris) or a body that never ends would otherwise hold its
/// connection for as long as it likes.
///
/// A value type without I/O: the server applies the sockets it returns
/// (shuts them down) while holding the lock that guards the table, so a
/// socket is never touched after libmicrohttpd has been told the
/// connection closed (and may reuse the descriptor).
struct ConnectionTable {
    struct Entry {
        let socket: Int32
        /// nil while the handler has the request (no deadline), or once cut.
        var deadline: ContinuousClock.Instant?
        /// Length of the current request's target as it arrived, up to its
        /// first NUL byte (libmicrohttpd's URI log callback).
        var targetLength: Int?
    }

    let requestTimeout: Duration
    private(set) var entries: [UInt: Entry] = [:]

    init(requestTimeout: Duration) {
        self.requestTimeout = requestTimeout
    }

    var count: Int { entries.count }

    /// A connection was accepted: its first request is due within the timeout.
    mutating func opened(_ connection: UInt, socket: Int32, now: ContinuousClock.Instant) {
        entries[connection] = Entry(socket: socket, deadline: now + requestTimeout)
    }

    /// The request was fully received (or answered early): the handler has
    /// it, and only the provider deadlines apply until it completes.
    mutating func answering(_ connection: UInt) {
        entries[connection]?.deadline = nil
    }

    /// The response went out: the next request on this connection is due
    /// within the timeout.
    mutating func completed(_ connection: UInt, now: ContinuousClock.Instant) {
        entries[connection]?.deadline = now + requestTimeout
        entries[connection]?.targetLength = nil
    }

    mutating func closed(_ connection: UInt) {
        entries[connection] = nil
    }

    mutating func targetArrived(_ connection: UInt, length: Int) {
        entries[connection]?.targetLength = length
    }

    func targetLength(_ connection: UInt) -> Int? {
        entries[connection]?.targetLength
    }

    /// The sockets of connections whose request is overdue, each returned
    /// once: the caller cuts them.
    mutating func overdue(now: ContinuousClock.Instant) -> [Int32] {
        var sockets: [Int32] = []
        for (connection, entry) in entries {
            if let deadline = entry.deadline, deadline <= now {
                sockets.append(entry.socket)
                entries[connection]?.deadline = nil
            }
        }
        return sockets
    }
}
