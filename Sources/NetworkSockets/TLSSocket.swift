#if canImport(Glibc)
import Glibc
#endif
import OpenSSLCrypto
internal import COpenSSL
internal import COpenSSLShims

/// A non-blocking TCP socket with a client TLS session on it, the server's
/// certificate and name verified (unless the context says not to) and, when
/// the context offers ALPN protocols, one of them selected. Used by one
/// thread at a time: the connecting thread, then the event-loop thread that
/// drives its connection.
///
/// `@unchecked Sendable`: it crosses threads once, from the connecting
/// thread to the loop thread through the connection's inbox lock, and the
/// connecting thread keeps no reference to it after handing it over.
public final class TLSSocket: ByteStreamSocket, @unchecked Sendable {
    public let descriptor: Int32
    private let ssl: OpaquePointer

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
    ///
    /// When `route` names a proxy for `host`, the TCP connect goes to the
    /// proxy and `host:port` is reached through a `CONNECT` tunnel; the TLS
    /// handshake, its SNI, verification and ALPN are then the same as on a
    /// direct connection, end to end with `host`. The tunnel shares the
    /// `timeout`. `admitsAddress`: the caller's rule for the resolved
    /// addresses, checked before connecting (`TCPSocket.openDescriptor`);
    /// through a proxy, which would resolve `host` itself, `host` is
    /// resolved and checked here and the tunnel goes to the first address
    /// the rule admits.
    public static func connect(host: String, port: Int, context: TLSClientContext, timeout: Duration,
                               route: ProxyRoute = .direct,
                               admitsAddress: (@Sendable ([UInt8]) -> Bool)? = nil) throws(SocketError) -> TLSSocket {
        let deadline = ContinuousClock.now + timeout
        let descriptor: Int32
        if let proxy = route.proxy(for: host) {
            var target = host
            if let admitsAddress {
                target = try TCPSocket.firstAdmittedAddress(host: host, port: port, admitsAddress: admitsAddress)
            }
            descriptor = try ProxyTunnel.open(to: target, port: port, through: proxy, deadline: deadline)
        } else {
            descriptor = try TCPSocket.openDescriptor(host: host, port: port, deadline: deadline, admitsAddress: admitsAddress)
        }
        guard let ssl = SSL_new(context.context) else {
            close(descriptor)
            throw SocketError(.setupFailed, OpenSSLErrors.failure("SSL_new"))
        }
        let socket = TLSSocket(descriptor: descriptor, ssl: ssl)
        // Our own socket BIO sends with MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
        guard let bio = pgw_bio_new_socket_nosigpipe(descriptor) else {
            throw SocketError(.setupFailed, OpenSSLErrors.failure("creating the socket BIO"))
        }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_connect_state(ssl)
        let isAddress = TCPSocket.isIPAddress(host)
        if context.verifyPeer {
            // Without the name (or address) to check, any certificate the CA
            // signed would do: a failure here (memory) ends the connect.
            let expected = isAddress
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
                : SSL_set1_host(ssl, host)
            guard expected == 1 else {
                throw SocketError(.setupFailed, OpenSSLErrors.failure("setting the name to verify (\(host))"))
            }
        }
        if !isAddress { _ = pgw_ssl_set_tlsext_host_name(ssl, host) }
        try socket.handshake(deadline: deadline, host: host, alpn: context.alpnProtocols, accepted: context.acceptedALPNProtocols)
        return socket
    }

    private func handshake(deadline: ContinuousClock.Instant, host: String, alpn: [[UInt8]], accepted: [[UInt8]]) throws(SocketError) {
        while true {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                guard TCPSocket.wait(descriptor, forWrite: error == SSL_ERROR_WANT_WRITE, until: deadline) else {
                    throw SocketError(.connectFailed, "TLS handshake with \(host) timed out")
                }
            default:
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    let reason = String(cString: X509_verify_cert_error_string(verify))
                    throw SocketError(.certificateRejected, "certificate of \(host) rejected: \(reason)")
                }
                throw SocketError(.connectFailed, OpenSSLErrors.failure("TLS handshake with \(host)"))
            }
        }
        guard !alpn.isEmpty else { return }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, accepted.contains(where: { $0.elementsEqual(UnsafeBufferPointer(start: protocolName, count: Int(length))) }) else {
            let wanted = accepted.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")
            throw SocketError(.alpnRefused, "\(host) selected none of the ALPN protocols accepted (\(wanted))")
        }
    }

    /// Reads decrypted bytes. The context reads ahead, so OpenSSL may hold
    /// whole records taken from the socket that `poll` can no longer see: a
    /// caller must read until `.wouldBlock` before it polls. OpenSSL returns
    /// "want read" only once every complete record it holds is consumed, so
    /// what is left then is at most a partial record, which needs more bytes
    /// from the socket, and `poll` says when they arrive.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, call: "SSL_read")
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> SocketIOResult {
        ERR_clear_error()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, call: "SSL_write")
    }

    /// Bytes already decrypted inside OpenSSL, which `poll` cannot see. Not
    /// `SSL_has_pending`: with read-ahead a partial record makes that true
    /// and a loop that skipped `poll` on it would spin.
    public var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }

    private func classify(_ result: Int32, call: String) -> SocketIOResult {
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
}
