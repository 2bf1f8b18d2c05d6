#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization
import PushGWSync

/// Work an `EventLoop` runs on its thread beside its
/// connections, such as the HTTP server's libmicrohttpd daemon: a request
/// that arrives there and is sent on a connection of the same loop crosses
/// no thread, and neither does its answer.
public protocol EventLoopSource: AnyObject, Sendable {
    /// Called on the loop thread at the start of every turn, before the
    /// connections write: does what is ready, and says what to poll.
    func turn() -> EventLoopSourceTurn
}

/// What an `EventLoopSource` asks of the loop's next `poll`.
public struct EventLoopSourceTurn: Sendable {
    /// Polled for reading; readable means the source has work.
    public var descriptor: Int32
    /// The longest the loop may sleep before the next turn, in milliseconds.
    public var timeoutMilliseconds: Int32

    public init(descriptor: Int32, timeoutMilliseconds: Int32) {
        self.descriptor = descriptor
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// A connection an `EventLoop` drives (an HTTP/2 client connection): on
/// every turn the loop asks it what to poll, then lets it serve what the
/// poll found. Called only on the loop's thread, once `adopt` has handed
/// it over.
package protocol EventLoopConnection: AnyObject, Sendable {
    /// Before the poll: does what is ready (submits, writes, checks timers)
    /// and says what to poll; nil once the connection has ended, and the
    /// loop drops it.
    func turn(buffer: inout [UInt8]) -> EventLoopConnectionTurn?
    /// After the poll: reads what arrived, given the poll's `revents`.
    func serve(revents: Int16, buffer: inout [UInt8])
    /// The loop cannot go on polling (`poll` itself failed): the connection
    /// ends at once, with `reason` as its failure.
    func loopFailed(_ reason: String)
}

/// What an `EventLoopConnection` asks of the loop's next `poll`.
package struct EventLoopConnectionTurn: Sendable {
    package var descriptor: Int32
    /// `POLLIN`, `POLLOUT` or both.
    package var events: Int16
    /// Input is already waiting in a buffer above the socket (TLS): the
    /// loop must not sleep in `poll`.
    package var buffered: Bool

    package init(descriptor: Int32, events: Int16, buffered: Bool) {
        self.descriptor = descriptor
        self.events = events
        self.buffered = buffered
    }
}

/// Why an `EventLoop` could not be made.
public struct EventLoopError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// One thread that drives several connections, and any
/// `EventLoopSource` attached to it: each turn it runs the sources, lets
/// every connection submit and write what it has, polls all their
/// descriptors and its wake pipe at once, and lets each readable connection
/// read.
///
/// A pool creates its own loops (two connections per loop: a burst for both
/// costs one wake-up), or runs its connections on loops it is given, shared
/// with other pools and with the HTTP server (the gateway runs one loop per
/// core for everything, so an event crosses no thread). A request sent from
/// the loop's own thread needs no wake-up: the loop turns right after.
///
/// A connection joins when it is created (`adopt`), while its connect
/// thread still resolves, connects and shakes hands, and leaves when it
/// has ended. The thread stops when its owner retires it and no
/// connection or source is left.
///
/// `@unchecked Sendable`: `connections`, `sources` and `buffer` are touched
/// only by the loop thread while it runs; other threads reach the loop
/// through `state` (a lock) and the wake pipe, whose descriptors are fixed
/// at init and closed in deinit. Once the loop has stopped, `perform` runs
/// its work on the caller's thread: setting `stopped` under `state`'s lock
/// is the loop thread's last touch of this state (it returns at once), so
/// the hand-over is ordered by that lock and no two threads touch the state.
public final class EventLoop: @unchecked Sendable {
    private struct State {
        var arriving: [any EventLoopConnection] = []
        var arrivingSources: [any EventLoopSource] = []
        var tasks: [@Sendable () -> Void] = []
        var retired = false
        var stopped = false
    }

    private let state = Locked(State())
    private let wakeReader: Int32
    private let wakeWriter: Int32
    /// The loop thread's id, set when it starts (0 before).
    private let threadID = Atomic<UInt>(0)
    /// Loop-thread state. `@exclusivity(unchecked)`: one thread touches
    /// it (see above) and no access overlaps another (`buffer` is lent to
    /// one connection at a time); the run-time checks cost a
    /// `swift_beginAccess` per access, every turn.
    @exclusivity(unchecked) private var connections: [any EventLoopConnection] = []
    @exclusivity(unchecked) private var sources: [any EventLoopSource] = []
    @exclusivity(unchecked) private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// With nothing to do, the loop still turns this often (connection timers).
    private static let idlePoll: Int32 = 50

    public init(name: String) throws(EventLoopError) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            throw EventLoopError(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = pipeEnds[0]
        wakeWriter = pipeEnds[1]
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            ThreadName.setCurrent(name)
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            started.signal()
            run()
        }
        thread.start()
        started.wait()
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// True on the loop's own thread.
    public var isCurrent: Bool {
        threadID.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Makes a new connection one of the loop's. False when the loop has
    /// already stopped.
    package func adopt(_ connection: any EventLoopConnection) -> Bool {
        hand { $0.arriving.append(connection) }
    }

    /// Runs `source` on every turn from now on, until `detach`. False when
    /// the loop has already stopped.
    @discardableResult
    public func attach(_ source: any EventLoopSource) -> Bool {
        hand { $0.arrivingSources.append(source) }
    }

    /// Hands something to the loop thread through `state` and wakes it;
    /// false (nothing handed) once the loop has stopped.
    private func hand(_ change: (inout State) -> Void) -> Bool {
        let taken = state.withLock { state in
            guard !state.stopped else { return false }
            change(&state)
            return true
        }
        if taken { wake() }
        return taken
    }

    /// Stops running `source`; when this returns, the loop no longer calls it.
    public func detach(_ source: any EventLoopSource) {
        perform { [self] in sources.removeAll { $0 === source } }
    }

    /// Runs `work` on the loop thread, between turns, and returns once it has
    /// run (at once when called on the loop thread, or when the loop has stopped).
    public func perform(_ work: @escaping @Sendable () -> Void) {
        if isCurrent { return work() }
        let done = DispatchSemaphore(value: 0)
        guard hand({ $0.tasks.append { work(); done.signal() } }) else { return work() }
        done.wait()
    }

    /// The owner is done: the thread stops once no connection or source is left.
    public func retire() {
        state.withLock { $0.retired = true }
        wake()
    }

    /// Makes the loop turn now (new requests, a shutdown, a new connection).
    /// Not needed on the loop's own thread, which turns anyway.
    public func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    private func run() {
        var entries: [pollfd] = []
        while true {
            let (arrived, arrivedSources, tasks, retired) = state.withLock { state in
                (Self.take(&state.arriving), Self.take(&state.arrivingSources), Self.take(&state.tasks), state.retired)
            }
            // Nothing handed over (most turns): no append call at all.
            if !arrived.isEmpty { connections.append(contentsOf: arrived) }
            if !arrivedSources.isEmpty { sources.append(contentsOf: arrivedSources) }
            for task in tasks { task() }
            entries.removeAll(keepingCapacity: true)
            entries.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
            var timeout = Self.idlePoll
            // Sources first: what they hand to this loop's connections is
            // written in the same turn.
            for source in sources {
                let turn = source.turn()
                entries.append(pollfd(fd: turn.descriptor, events: Int16(POLLIN), revents: 0))
                timeout = min(timeout, max(0, turn.timeoutMilliseconds))
            }
            let firstConnection = entries.count
            // A loop with sources only (the HTTP server's) has no list to rebuild.
            if !connections.isEmpty {
                var open: [any EventLoopConnection] = []
                open.reserveCapacity(connections.count)
                for connection in connections {
                    guard let turn = connection.turn(buffer: &buffer) else { continue }
                    open.append(connection)
                    entries.append(pollfd(fd: turn.descriptor, events: turn.events, revents: 0))
                    if turn.buffered { timeout = 0 }
                }
                connections = open
            }
            if connections.isEmpty, sources.isEmpty, retired {
                let stop = state.withLock { state -> Bool in
                    guard state.arriving.isEmpty, state.arrivingSources.isEmpty, state.tasks.isEmpty else { return false }
                    state.stopped = true
                    return true
                }
                if stop { return }
                continue
            }
            let result = poll(&entries, nfds_t(entries.count), timeout)
            if result < 0, errno != EINTR {
                let reason = "poll failed: \(String(cString: strerror(errno)))"
                for connection in connections { connection.loopFailed(reason) }
                connections.removeAll()
                continue
            }
            if entries[0].revents != 0 { drainWakePipe() }
            for (index, connection) in connections.enumerated() {
                connection.serve(revents: entries[firstConnection + index].revents, buffer: &buffer)
            }
        }
    }

    /// What `items` holds, leaving it empty. An empty list costs nothing: most
    /// turns hand nothing over, and emptying a list whose buffer was just
    /// shared with the caller (`removeAll(keepingCapacity:)`) would allocate
    /// a new one on every turn.
    private static func take<Element>(_ items: inout [Element]) -> [Element] {
        guard !items.isEmpty else { return [] }
        defer { items = [] }
        return items
    }

    /// Empties the wake pipe (one byte per wake; a short read means it is
    /// empty) into a buffer on the stack.
    private func drainWakePipe() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { drained in
            while read(wakeReader, drained.baseAddress, drained.count) == drained.count {}
        }
    }
}
