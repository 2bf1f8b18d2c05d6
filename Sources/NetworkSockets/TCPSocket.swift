#if canImport(Glibc)
import Glibc
#endif
import PushGWSync

/// A connected, non-blocking TCP socket (`TCP_NODELAY`, writes with
/// `MSG_NOSIGNAL`), for plain-text protocols (`redis://`). Also the TCP
/// connect that `TLSSocket` starts from.
///
/// `@unchecked Sendable`: the descriptor is fixed at init; the socket is
/// used by one thread at a time (the connecting thread, then the loop
/// thread it is handed to through a lock), and the connecting thread keeps
/// no reference once it has handed it over.
public final class TCPSocket: ByteStreamSocket, @unchecked Sendable {
    public let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Resolves `host` afresh (no cache) and connects within `timeout`.
    public static func connect(host: String, port: Int, timeout: Duration) throws(SocketError) -> TCPSocket {
        TCPSocket(descriptor: try openDescriptor(host: host, port: port, deadline: ContinuousClock.now + timeout))
    }

    public var hasBufferedInput: Bool { false }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return Self.classify(errno, call: "recv")
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> SocketIOResult {
        while true {
            let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            return Self.classify(errno, call: "send")
        }
    }

    private static func classify(_ code: Int32, call: String) -> SocketIOResult {
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(wantsWrite: call == "send") }
        if code == ECONNRESET || code == EPIPE { return .closed }
        return .failed("\(call): \(String(cString: strerror(code)))")
    }

    /// A non-blocking descriptor connected to `host:port` (each resolved
    /// address in turn) by `deadline`. `admitsAddress`, when given, is asked
    /// about each resolved address (network-order bytes, 4 for IPv4, 16 for
    /// IPv6) before a socket is made for it: a refused one is skipped, and
    /// when none is left the connect fails with `addressRefused`.
    static func openDescriptor(host: String, port: Int, deadline: ContinuousClock.Instant,
                               admitsAddress: (@Sendable ([UInt8]) -> Bool)? = nil) throws(SocketError) -> Int32 {
        let first = try resolve(host, port)
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var refusedAll = true
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            if let admitsAddress {
                guard let bytes = addressBytes(current.pointee), admitsAddress(bytes) else { continue }
            }
            refusedAll = false
            let descriptor = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                return descriptor
            }
            if errno == EINPROGRESS, wait(descriptor, forWrite: true, until: deadline) {
                var socketError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
                if socketError == 0 { return descriptor }
                lastError = String(cString: strerror(socketError))
            } else {
                lastError = errno == EINPROGRESS ? "timed out" : String(cString: strerror(errno))
            }
            close(descriptor)
        }
        if admitsAddress != nil, refusedAll {
            throw SocketError(.addressRefused, "\(host) resolves only to addresses that may not be connected to")
        }
        throw SocketError(.connectFailed, "cannot connect to \(host):\(port): \(lastError)")
    }

    /// The first address `host` resolves to that `admitsAddress` admits, as
    /// numeric text (for a proxy's `CONNECT`, so that the proxy does not
    /// resolve the name again to an address the rule never saw);
    /// `addressRefused` when none is admitted.
    static func firstAdmittedAddress(host: String, port: Int,
                                     admitsAddress: @Sendable ([UInt8]) -> Bool) throws(SocketError) -> String {
        let first = try resolve(host, port)
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            guard let bytes = addressBytes(current.pointee), admitsAddress(bytes) else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        throw SocketError(.addressRefused, "\(host) resolves only to addresses that may not be connected to")
    }

    /// `host:port`'s addresses for a stream socket, from `getaddrinfo`: the
    /// caller frees the list with `freeaddrinfo`.
    private static func resolve(_ host: String, _ port: Int) throws(SocketError) -> UnsafeMutablePointer<addrinfo> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SocketError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        return first
    }

    /// The network-order bytes of a resolved address; nil for a family other than IPv4 and IPv6.
    private static func addressBytes(_ info: addrinfo) -> [UInt8]? {
        guard let address = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// Waits until `descriptor` is readable or writable, or `deadline` passes.
    static func wait(_ descriptor: Int32, forWrite: Bool, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return false }
            let milliseconds = min(remaining.pollMilliseconds, 60_000)
            var entry = pollfd(fd: descriptor, events: Int16(forWrite ? POLLOUT : POLLIN), revents: 0)
            let result = poll(&entry, 1, milliseconds)
            if result > 0 { return true }
            if result < 0, errno != EINTR { return false }
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }
}
