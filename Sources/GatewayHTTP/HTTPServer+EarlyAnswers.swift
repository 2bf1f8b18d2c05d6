// HTTPServer's answers to requests libmicrohttpd would refuse itself
// before any handler runs: a `Content-Length` it cannot read.
//
// libmicrohttpd 0.9.75 reads `Content-Length` once the head is complete
// and, when it is not a number or is beyond 64 bits, queues its own HTML
// 400 or 413 without calling the access handler; a slip in its state
// machine then builds that answer's head a second time, so the client
// receives two status lines for one request (behind a proxy, every later
// answer on the connection shifts by one). No callback runs between the
// head's arrival and that answer, except the error log, which names the
// problem just before the answer is queued. So the error log is where the
// server answers: it finds its daemon's connections whose request is still
// being received and whose `Content-Length` cannot be read, writes the JSON
// answer on the socket itself and shuts down the socket's sending side.
// libmicrohttpd's own answer then fails to be written and the connection
// closes: one request, one answer.

#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD
import PayloadBuilder
import Synchronization

/// The context of one daemon's error log: the server, and the daemon the
/// log belongs to (set once it started; libmicrohttpd calls the log on the
/// thread running that daemon).
final class DaemonLog: Sendable {
    unowned let server: HTTPServer
    /// The daemon's address; 0 until it started.
    let daemon = Atomic<UInt>(0)

    init(server: HTTPServer) {
        self.server = server
    }
}

extension HTTPServer {
    /// Answers, on `daemon`'s thread, every request of that daemon still
    /// being received whose `Content-Length` libmicrohttpd cannot read (one
    /// that has not reached the handler cannot have been answered yet).
    /// Any such request is refused whatever else it holds, so one whose
    /// head is still arriving is answered now too.
    func answerUnreadableLengths(daemon: UInt) {
        guard daemon != 0 else { return }
        // Only this daemon's connections, which this thread runs: reading
        // their headers here races with nothing. The table's lock keeps the
        // entries from being removed meanwhile.
        let refused = watch.table.withLock { table -> [(ConnectionEntry, HTTPResponse)] in
            var refused: [(ConnectionEntry, HTTPResponse)] = []
            for (key, entry) in table.entries where entry.daemon == daemon && entry.isReceiving && !entry.answeredEarly {
                guard let connection = OpaquePointer(bitPattern: key) else { continue }
                var refusal: HTTPResponse?
                _ = withUnsafeMutablePointer(to: &refusal) { pointer in
                    MHD_get_connection_values_n(connection, .HEADER_KIND, findUnreadableLength, pointer)
                }
                if let refusal { refused.append((entry, refusal)) }
            }
            return refused
        }
        for (entry, refusal) in refused {
            entry.answerEarly()
            let path = entry.targetPointer.map { target in
                RequestTarget.path(UnsafeBufferPointer(start: UnsafeRawPointer(target).assumingMemoryBound(to: UInt8.self),
                                                       count: strcspn(target, "?")))
            } ?? "/"
            write(refusal, closing: entry.socket)
            handler.answered(path: path, refusal)
        }
    }

    /// Writes `response` whole on `socket` (a closing answer, with
    /// `Connection: close`), then shuts down the socket's sending side so
    /// that nothing libmicrohttpd writes after it reaches the client.
    private func write(_ response: HTTPResponse, closing socket: Int32) {
        var head = "HTTP/1.1 \(response.status) \(String(cString: MHD_get_reason_phrase_for(UInt32(response.status))))\r\n"
        head += "Date: \(Self.httpDate())\r\nContent-Type: \(response.contentType)\r\nCache-Control: no-store\r\n"
        head += "Connection: close\r\nContent-Length: \(response.body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        // A small answer on a connection whose previous answers were all
        // taken by the kernel: it fits the socket's buffer, unless the
        // client has stopped reading, which then gets no answer.
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if count > 0 { sent += count } else if count < 0, errno == EINTR { continue } else { break }
        }
        // SHUT_WR, spelled out (see ConnectionWatch.sweep).
        shutdown(socket, 1)
    }

    /// Now as an HTTP date (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func httpDate() -> String {
        var now = time(nil)
        var fields = tm()
        gmtime_r(&now, &fields)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &fields)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Sets the `HTTPResponse?` passed as the context to the refusal of the
/// first `Content-Length` that cannot be read, if any.
private let findUnreadableLength: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let key, keySize == 14 else { return .YES }
    let name = UnsafeRawBufferPointer(start: key, count: keySize)
    guard RequestScreen.equalsIgnoringCase(name, "content-length") else { return .YES }
    let refusal = context!.assumingMemoryBound(to: HTTPResponse?.self)
    refusal.pointee = RequestScreen.contentLengthRefusal(UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
    return refusal.pointee == nil ? .YES : .NO
}
