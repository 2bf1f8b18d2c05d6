#if canImport(Glibc)
import Glibc
#endif
import OpenSSLCrypto
internal import COpenSSL
internal import COpenSSLShims

/// A non-blocking TCP socket with a client TLS session on it, ALPN `h2`
/// verified. Used by one thread at a time: the connecting thread, then the
/// event-loop thread that drives its connection.
///
/// `@unchecked Sendable`: it crosses threads once, from the connecting
/// thread to the loop thread through the connection's inbox lock, and the
/// connecting thread keeps no reference to it after handing it over.
final class TLSSocket: @unchecked Sendable {
    let descriptor: Int32
    private let ssl: OpaquePointer

    /// The result of one read or write.
    enum IOResult {
        case bytes(Int)
        /// Try again when the socket is readable (`wantsWrite == false`) or writable.
        case wouldBlock(wantsWrite: Bool)
        case closed
        case failed(String)
    }

    private init(descriptor: Int32, ssl: OpaquePointer) {
        self.descriptor = descriptor
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
        close(descriptor)
    }

    /// Resolves `host` afresh (no cache: APNs asks for an uncached lookup per
    /// connection), connects, and completes the TLS handshake, all within `timeout`.
    static func connect(host: String, port: Int, context: TLSClientContext, timeout: Duration) throws(TransportError) -> TLSSocket {
        let deadline = ContinuousClock.now + timeout
        let descriptor = try openTCP(host: host, port: port, deadline: deadline)
        guard let ssl = SSL_new(context.context) else {
            close(descriptor)
            throw TransportError(.protocolError, OpenSSLErrors.failure("SSL_new"))
        }
        let socket = TLSSocket(descriptor: descriptor, ssl: ssl)
        // Our own socket BIO sends with MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
        guard let bio = pgw_bio_new_socket_nosigpipe(descriptor) else {
            throw TransportError(.protocolError, OpenSSLErrors.failure("creating the socket BIO"))
        }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_connect_state(ssl)
        if context.verifyPeer {
            // Without the name (or address) to check, any certificate the CA
            // signed would do: a failure here (memory) ends the connect.
            let expected = isIPAddress(host)
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
                : SSL_set1_host(ssl, host)
            guard expected == 1 else {
                throw TransportError(.protocolError, OpenSSLErrors.failure("setting the name to verify (\(host))"))
            }
            if !isIPAddress(host) { _ = pgw_ssl_set_tlsext_host_name(ssl, host) }
        } else if !isIPAddress(host) {
            _ = pgw_ssl_set_tlsext_host_name(ssl, host)
        }
        try socket.handshake(deadline: deadline, host: host)
        return socket
    }

    private func handshake(deadline: ContinuousClock.Instant, host: String) throws(TransportError) {
        while true {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                guard TLSSocket.wait(descriptor, forWrite: error == SSL_ERROR_WANT_WRITE, until: deadline) else {
                    throw TransportError(.connectFailed, "TLS handshake with \(host) timed out")
                }
            default:
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    let reason = String(cString: X509_verify_cert_error_string(verify))
                    throw TransportError(.certificateRejected, "certificate of \(host) rejected: \(reason)")
                }
                throw TransportError(.connectFailed, OpenSSLErrors.failure("TLS handshake with \(host)"))
            }
        }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, length == 2, protocolName[0] == UInt8(ascii: "h"), protocolName[1] == UInt8(ascii: "2") else {
            throw TransportError(.noHTTP2, "\(host) did not select HTTP/2 (ALPN h2)")
        }
    }

    /// Reads decrypted bytes. The context reads ahead, so OpenSSL may hold
    /// whole records taken from the socket that `poll` can no longer see: a
    /// caller must read until `.wouldBlock` before it polls. OpenSSL returns
    /// "want read" only once every complete record it holds is consumed, so
    /// what is left then is at most a partial record, which needs more bytes
    /// from the socket, and `poll` says when they arrive.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, call: "SSL_read")
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        ERR_clear_error()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, call: "SSL_write")
    }

    /// Bytes already decrypted inside OpenSSL, which `poll` cannot see. Not
    /// `SSL_has_pending`: with read-ahead a partial record makes that true
    /// and a loop that skipped `poll` on it would spin.
    var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }

    private func classify(_ result: Int32, call: String) -> IOResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wouldBlock(wantsWrite: false)
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(wantsWrite: true)
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let code = errno
            ERR_clear_error()
            return code == 0 ? .closed : .failed("\(call): \(String(cString: strerror(code)))")
        default:
            return .failed(OpenSSLErrors.failure(call))
        }
    }

    // MARK: TCP

    private static func openTCP(host: String, port: Int, deadline: ContinuousClock.Instant) throws(TransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TransportError(.connectFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
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
        throw TransportError(.connectFailed, "cannot connect to \(host):\(port): \(lastError)")
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

    private static func isIPAddress(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }
}
