#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A TCP relay on a free loopback port that holds each connection for
/// `delay` before relaying it to `target` (or, without a target, never
/// answers at all): a slow or stalled proxy in front of a real one, for
/// tests of connect deadlines.
///
/// Each accepted connection gets a thread of its own, which keeps the relay
/// alive: a test calls `stop()`, which closes the listener and every
/// connection.
///
/// `@unchecked Sendable`: the descriptors and the stopped flag are guarded
/// by `lock`; the threads only read them under it.
public final class DelayingRelay: @unchecked Sendable {
    public let port: Int
    public let delay: Duration
    public let target: Int?
    private let listener: Int32
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var stopped = false
    /// Connections accepted so far.
    private var acceptedCount = 0

    /// - Parameters:
    ///   - delay: how long each connection waits before it is relayed.
    ///   - target: the loopback port to relay to; nil: hold the connection silent.
    public init(delay: Duration, target: Int?) throws {
        self.delay = delay
        self.target = target
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw RedisTestServerError(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 64) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw RedisTestServerError(description: "bind failed")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far.
    public var accepted: Int { lock.withLock { acceptedCount } }

    /// Closes the listener and every connection.
    public func stop() {
        // Under the lock: a descriptor in `open` is not closed yet, so the
        // shutdown cannot reach a number the process has reused.
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            let admitted = lock.withLock {
                guard !stopped else { return false }
                open.insert(client)
                acceptedCount += 1
                return true
            }
            guard admitted else {
                close(client)
                break
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
        lock.withLock {
            stopped = true
            close(listener)
        }
    }

    private func serve(_ client: Int32) {
        defer { forget(client) }
        // Holding the connection is the point: a proxy slow to answer.
        let until = ContinuousClock.now + delay
        while ContinuousClock.now < until, !isStopped {
            var entry = pollfd(fd: client, events: 0, revents: 0)
            _ = poll(&entry, 1, 20)
        }
        guard let target, !isStopped else {
            while !isStopped {
                var entry = pollfd(fd: client, events: 0, revents: 0)
                if poll(&entry, 1, 50) > 0, entry.revents & Int16(POLLHUP | POLLERR) != 0 { return }
            }
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard upstream >= 0 else { return }
        lock.withLock { _ = open.insert(upstream) }
        defer { forget(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(target).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !isStopped {
            var entries = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, 100) >= 0 else { return }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let from = index == 0 ? client : upstream
                let to = index == 0 ? upstream : client
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                var sent = 0
                while sent < count {
                    let written = buffer[sent..<count].withUnsafeBytes { send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard written > 0 else { return }
                    sent += written
                }
            }
        }
    }

    private func forget(_ descriptor: Int32) {
        lock.withLock { _ = open.remove(descriptor) }
        close(descriptor)
    }
}
