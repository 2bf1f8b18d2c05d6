#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushGWSync

/// One thread that drives several HTTP/2 connections: each turn it lets
/// every connection submit and write what it has, polls all their sockets
/// and its wake pipe at once, and lets each readable connection read. A pool
/// runs two connections per loop, so a burst for both costs one wake-up, and
/// they do not take turns on the cores as threads of their own would.
///
/// A connection joins once its TLS handshake is done (`adopt`) and leaves
/// when it has ended. The thread stops when its owner retires it and no
/// connection is left.
///
/// `@unchecked Sendable`: `connections` and `buffer` are touched only by the
/// loop thread; other threads reach the loop through `state` (a lock) and the
/// wake pipe, whose descriptors are fixed at init and closed in deinit.
final class HTTP2EventLoop: @unchecked Sendable {
    private struct State {
        var arriving: [HTTP2Connection] = []
        var retired = false
        var stopped = false
    }

    private let state = Locked(State())
    private let wakeReader: Int32
    private let wakeWriter: Int32
    /// Loop-thread state.
    private var connections: [HTTP2Connection] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// With nothing to do, the loop still turns this often (connection timers).
    private static let idlePoll: Int32 = 50

    init(name: String) throws(TransportError) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            throw TransportError(.protocolError, "pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = pipeEnds[0]
        wakeWriter = pipeEnds[1]
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// Makes a connected connection one of the loop's. False when the loop
    /// has already stopped (the caller then ends the connection itself).
    func adopt(_ connection: HTTP2Connection) -> Bool {
        let taken = state.withLock { state in
            guard !state.stopped else { return false }
            state.arriving.append(connection)
            return true
        }
        if taken { wake() }
        return taken
    }

    /// The owner is done: the thread stops once no connection is left.
    func retire() {
        state.withLock { $0.retired = true }
        wake()
    }

    /// Makes the loop turn now (new requests, a shutdown, a new connection).
    func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    private func run() {
        var entries: [pollfd] = []
        while true {
            let (arrived, retired) = state.withLock { state in
                defer { state.arriving.removeAll(keepingCapacity: true) }
                return (state.arriving, state.retired)
            }
            connections.append(contentsOf: arrived)
            entries.removeAll(keepingCapacity: true)
            entries.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
            var buffered = false
            var open: [HTTP2Connection] = []
            open.reserveCapacity(connections.count)
            for connection in connections {
                guard let turn = connection.turn(buffer: &buffer) else { continue }
                open.append(connection)
                entries.append(pollfd(fd: turn.descriptor, events: turn.events, revents: 0))
                buffered = buffered || turn.buffered
            }
            connections = open
            if connections.isEmpty, retired {
                let stop = state.withLock { state -> Bool in
                    guard state.arriving.isEmpty else { return false }
                    state.stopped = true
                    return true
                }
                if stop { return }
                continue
            }
            let result = poll(&entries, nfds_t(entries.count), buffered ? 0 : Self.idlePoll)
            if result < 0, errno != EINTR {
                let error = TransportError(.connectionLost, "poll failed: \(String(cString: strerror(errno)))")
                for connection in connections { connection.end(error) }
                connections.removeAll()
                continue
            }
            if entries[0].revents != 0 { drainWakePipe() }
            for (index, connection) in connections.enumerated() {
                connection.serve(revents: entries[index + 1].revents, buffer: &buffer)
            }
        }
    }

    /// Empties the wake pipe (one byte per wake; a short read means it is
    /// empty) into a buffer on the stack.
    private func drainWakePipe() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { drained in
            while read(wakeReader, drained.baseAddress, drained.count) == drained.count {}
        }
    }
}
