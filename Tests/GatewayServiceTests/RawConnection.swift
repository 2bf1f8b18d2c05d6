import Foundation
import Glibc

/// A plain TCP client to 127.0.0.1 for tests that must speak broken HTTP:
/// bytes go out exactly as given, and what comes back is read with a
/// deadline. Writes never raise SIGPIPE (MSG_NOSIGNAL).
///
/// Not thread-safe: one thread drives one connection.
final class RawConnection {
    /// What the server did with the connection.
    enum Reply: Equatable, CustomStringConvertible {
        /// A complete HTTP response (status line, headers, Content-Length body).
        case response(status: Int, headers: [String: String], body: [UInt8])
        /// Closed (EOF or reset) before a complete response.
        case closed
        /// Nothing conclusive before the deadline.
        case timedOut

        var status: Int? {
            if case let .response(status, _, _) = self { return status }
            return nil
        }

        var description: String {
            switch self {
            case let .response(status, _, body): "HTTP \(status) \(String(decoding: body.prefix(200), as: UTF8.self))"
            case .closed: "closed"
            case .timedOut: "timed out"
            }
        }
    }

    private(set) var descriptor: Int32
    /// Bytes received and not yet consumed by `readReply`.
    private var pending: [UInt8] = []
    private var sawEOF = false

    /// Connects to `127.0.0.1:port` (blocking; loopback connects at once),
    /// from `source` (another loopback address, to be another client).
    init(port: Int, source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(descriptor)
                throw POSIXError(.init(rawValue: code) ?? .EIO)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
    }

    deinit {
        close()
    }

    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Sends every byte; false when the peer closed or reset the connection
    /// (or the send would block longer than `timeout`).
    @discardableResult
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < bytes.count {
            guard wait(for: Int16(POLLOUT), until: deadline) else { return false }
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String, timeout: Duration = .seconds(5)) -> Bool {
        send(Array(text.utf8), timeout: timeout)
    }

    /// Whether the server has closed (or reset) the connection, looking
    /// without waiting. Data that arrived first is kept for `readReply`.
    var isClosedByPeer: Bool {
        fill(until: .now)
        return sawEOF
    }

    /// Reads one HTTP response, or notes the close, within `timeout`.
    func readReply(timeout: Duration = .seconds(5)) -> Reply {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let reply = parse() { return reply }
            if sawEOF { return .closed }
            if ContinuousClock.now >= deadline { return .timedOut }
            fill(until: deadline)
        }
    }

    /// Reads what is available, waiting at most until `deadline` for the first byte.
    private func fill(until deadline: ContinuousClock.Instant) {
        guard !sawEOF, wait(for: Int16(POLLIN), until: deadline) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                pending += buffer[..<count]
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EINTR) { sawEOF = true }
            return
        }
    }

    /// Whether the socket is ready for `events` (or in error) before `deadline`.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 || errno != EINTR { return false }
        }
    }

    /// One complete response at the front of `pending`, consumed.
    private func parse() -> Reply? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard pending.count >= 4,
              let end = (0...(pending.count - 4)).first(where: { pending[$0..<($0 + 4)].elementsEqual(separator) }) else { return nil }
        let head = String(decoding: pending[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return .closed }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        let bodyStart = end + 4
        guard pending.count - bodyStart >= length else { return sawEOF ? .closed : nil }
        let body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return .response(status: status, headers: headers, body: body)
    }
}
