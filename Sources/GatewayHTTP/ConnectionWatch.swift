#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization
import PushGWSync

/// Cuts the connections whose request is overdue (`ConnectionTable`): a
/// thread of its own wakes a few times per timeout and shuts down their
/// sockets, so libmicrohttpd sees the connection end and frees it.
///
/// The sockets are shut down (not closed) while the table's lock is held;
/// libmicrohttpd reports a connection closed (and removes it from the
/// table under the same lock) before it closes the descriptor, so a
/// descriptor reused by a new connection is never shut down by mistake.
final class ConnectionWatch: Sendable {
    let table: Locked<ConnectionTable>
    private let tick: Duration
    private let wake = DispatchSemaphore(value: 0)

    init(requestTimeout: Duration) {
        table = Locked(ConnectionTable(requestTimeout: requestTimeout))
        tick = min(.seconds(1), max(.milliseconds(50), requestTimeout / 4))
    }

    /// Starts the sweeping thread; it runs until `stop`.
    func start() {
        let nanoseconds = Int(tick.wholeNanoseconds)
        Thread.detachNewThread { [self] in
            ThreadName.setCurrent("pushgw-watch")
            while wake.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                sweep(now: .now)
            }
        }
    }

    func stop() {
        wake.signal()
    }

    /// Shuts down the sockets of overdue requests.
    func sweep(now: ContinuousClock.Instant) {
        // SHUT_RDWR, spelled out: <sys/socket.h>'s enums belong to the
        // CMicroHTTPD module map in release builds (see HTTPServer.listen).
        let bothDirections: Int32 = 2
        table.withLock { table in
            for socket in table.overdue(now: now) {
                shutdown(socket, bothDirections)
            }
        }
    }
}
