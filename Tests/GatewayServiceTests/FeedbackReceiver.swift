import Foundation
import Glibc
import PushGWSync

/// A tiny HTTP/1.1 receiver on 127.0.0.1 for the feedback webhook tests:
/// one thread accepts and serves each connection in turn, reads one request
/// (head and `Content-Length` body), records its header fields and body,
/// answers the next status of `statuses` (the last one thereafter) and
/// closes. Recorded requests are behind a lock; the rest is immutable.
final class FeedbackReceiver: Sendable {
    struct Request: Sendable {
        /// Header fields by lowercase name.
        let headers: [String: String]
        let body: [UInt8]
    }

    let port: UInt16
    private let listener: Int32
    private let statuses: [Int]
    private let received = Locked<[Request]>([])

    init(statuses: [Int]) throws {
        self.statuses = statuses
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in serve() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)/feedback" }

    var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting (the accept fails once the socket is shut down).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            guard let request = read(connection) else { continue }
            let count = received.withLock { requests in
                requests.append(request)
                return requests.count
            }
            let status = statuses[min(count - 1, statuses.count - 1)]
            let answer = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = answer.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
    }

    private func read(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var head: (end: Int, headers: [String: String], length: Int)?
        while true {
            if head == nil, let end = bytes.indices.dropLast(3).first(where: { bytes[$0...$0 + 3].elementsEqual([13, 10, 13, 10]) }) {
                var headers: [String: String] = [:]
                for line in String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                head = (end + 4, headers, Int(headers["content-length"] ?? "0") ?? 0)
            }
            if let head, bytes.count >= head.end + head.length {
                return Request(headers: head.headers, body: Array(bytes[head.end..<head.end + head.length]))
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
    }
}
