import Foundation
import Glibc
import Synchronization
import PushGWSync

/// A failed socket call in the test server.
struct AvatarTestServerError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// A tiny HTTP/1.1 server on a loopback address, for the avatar tests only.
///
/// One thread accepts; each connection gets its own thread, reads one request
/// head, records its path, answers what `routes` says, and closes
/// (`Connection: close`). It counts connections (so a test can prove that a
/// refused URL never reached it) and requests, and for streamed bodies how
/// many bytes went out before the peer hung up. Thread-safe: counters are in
/// a `Mutex`, the stop flag is an `Atomic`, the connection threads and the
/// stop are tracked by dispatch groups, everything else is immutable.
final class AvatarTestServer: Sendable {
    /// What to answer a request with.
    indirect enum Reply: Sendable {
        /// A complete response with `Content-Length`.
        case body(status: Int, contentType: String?, bytes: [UInt8])
        /// A redirect to `location` with an empty body.
        case redirect(status: Int, location: String)
        /// `total` bytes of `chunk` repeated, with or without `Content-Length`,
        /// until done or the peer stops reading.
        case stream(contentType: String, chunk: [UInt8], total: Int, declareLength: Bool)
        /// Reads the request and never answers, until the peer hangs up.
        case stall
        /// Waits, then answers.
        case delayed(Duration, Reply)
    }

    /// What the server saw.
    struct Stats: Sendable {
        var connections = 0
        var requests: [String] = []
        var streamedBytes = 0
        var streamCutShort = false
        /// Requests received and not yet being sent their answer (a delayed
        /// answer counts during its delay), and the most there ever were.
        var answering = 0
        var peakAnswering = 0
    }

    let address: String
    let port: UInt16
    private let listener: Int32
    private let routes: @Sendable (String) -> Reply
    private let stats = Locked(Stats())
    /// Entered by each connection thread, left when it ends: `stop` waits on it.
    private let threads = DispatchGroup()
    /// Entered at start, left by `stop`: a delayed answer waits on it, so a
    /// stop cuts the delay short.
    private let running = DispatchGroup()
    private let stopping = Atomic<Bool>(false)

    /// Starts listening on `address` (any 127.x.y.z works on Linux) at an ephemeral port.
    init(address: String = "127.0.0.1", routes: @escaping @Sendable (String) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw AvatarTestServerError(call: "socket", code: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = 0
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else {
            close(fd)
            throw AvatarTestServerError(call: "inet_pton", code: EINVAL)
        }
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw AvatarTestServerError(call: "bind/listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.address = address
        self.port = UInt16(bigEndian: socketAddress.sin_port)
        self.listener = fd
        self.routes = routes
        running.enter()
        spawn { [self] in acceptLoop() }
    }

    /// A server answering from a table of paths, 404 for anything else.
    convenience init(address: String = "127.0.0.1", paths: [String: Reply]) throws {
        try self.init(address: address) { path in
            paths[path] ?? .body(status: 404, contentType: "text/plain", bytes: Array("not found".utf8))
        }
    }

    /// `http://address:port` + `path`.
    func url(_ path: String) -> String { "http://\(address):\(port)\(path)" }

    /// What the server has seen so far.
    var seen: Stats { stats.withLock { $0 } }

    /// Stops accepting, waits (up to 10 s) for every connection thread, closes
    /// the socket. Every test calls it: the accept thread keeps the server alive until then.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        running.leave()
        shutdown(listener, Int32(SHUT_RDWR))
        _ = threads.wait(timeout: .now() + .seconds(10))
        close(listener)
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        Thread.detachNewThread { [self] in
            body()
            threads.leave()
        }
    }

    private func acceptLoop() {
        while !isStopping {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            guard !isStopping else {
                close(connection)
                return
            }
            stats.withLock { $0.connections += 1 }
            spawn { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let path = readRequestPath(connection) else { return }
        stats.withLock { stats in
            stats.requests.append(path)
            stats.answering += 1
            stats.peakAnswering = max(stats.peakAnswering, stats.answering)
        }
        var reply = routes(path)
        if case let .delayed(delay, inner) = reply {
            wait(delay)
            reply = inner
        }
        // No longer counted once its bytes may go out: a client that reads
        // them and opens its next download is then never seen overlapping
        // itself (counted until after the send, a thread slowed by a
        // sanitizer was still counting when the client's next request came).
        stats.withLock { $0.answering -= 1 }
        answer(reply, on: connection)
    }

    /// Waits for `delay` (the slow server a `.delayed` reply plays), or less
    /// when the server stops.
    private func wait(_ delay: Duration) {
        let (seconds, attoseconds) = delay.components
        _ = running.wait(timeout: .now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)))
    }

    /// Reads up to the end of the request head; the path of its request line.
    private func readRequestPath(_ connection: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count < 65_536 {
            guard waitReadable(connection, milliseconds: 5_000) else { return nil }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            head.append(contentsOf: buffer[..<count])
            if head.count >= 4, head.indices.dropLast(3).contains(where: { head[$0..<$0 + 4].elementsEqual(terminator) }) {
                let line = String(decoding: head.prefix { $0 != 0x0D }, as: UTF8.self)
                let parts = line.split(separator: " ")
                return parts.count >= 2 ? String(parts[1]) : nil
            }
        }
        return nil
    }

    private func answer(_ reply: Reply, on connection: Int32) {
        switch reply {
        case let .body(status, contentType, bytes):
            var head = "HTTP/1.1 \(status) \(Self.phrase(status))\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n"
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            _ = sendAll(connection, Array((head + "\r\n").utf8) + bytes)
        case let .redirect(status, location):
            let head = "HTTP/1.1 \(status) \(Self.phrase(status))\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = sendAll(connection, Array(head.utf8))
        case let .stream(contentType, chunk, total, declareLength):
            var head = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nConnection: close\r\n"
            if declareLength { head += "Content-Length: \(total)\r\n" }
            guard sendAll(connection, Array((head + "\r\n").utf8)) else { return }
            var sent = 0
            while sent < total, !isStopping {
                let piece = Array(chunk.prefix(total - sent))
                guard sendAll(connection, piece) else {
                    stats.withLock { $0.streamCutShort = true }
                    break
                }
                sent += piece.count
                stats.withLock { $0.streamedBytes = sent }
            }
        case .stall:
            var byte: UInt8 = 0
            while !isStopping {
                if waitReadable(connection, milliseconds: 20), recv(connection, &byte, 1, 0) <= 0 { return }
            }
        case let .delayed(delay, inner):
            wait(delay)
            answer(inner, on: connection)
        }
    }

    private func sendAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    private func waitReadable(_ connection: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 307: return "Temporary Redirect"
        case 404: return "Not Found"
        default: return "Status"
        }
    }

    /// A loopback port nothing listens on (bound, read, released).
    static func closedPort() throws -> UInt16 {
        let server = try AvatarTestServer { _ in .stall }
        let port = server.port
        server.stop()
        return port
    }
}
