#if canImport(Glibc)
import Glibc
#endif

/// Opens a TCP connection to a host through an HTTP proxy: the connect goes
/// to the proxy, which is asked `CONNECT host:port` (with `Host` and, when
/// the proxy URL has credentials, Basic `Proxy-Authorization`); after a 2xx
/// answer the descriptor carries the tunnel, and what is written on it (a TLS
/// handshake, with the target's name for SNI and verification) reaches the
/// target unchanged. The proxy sees only the target's name and port.
///
/// Everything runs on the connecting thread, on the non-blocking
/// descriptor, by the caller's deadline: a proxy that does not answer, or
/// answers slowly, ends the connect at the deadline like a slow server.
enum ProxyTunnel {
    /// A descriptor tunnelled to `host:port` through `proxy`, by `deadline`.
    ///
    /// Throws `.connectFailed` when the proxy cannot be reached,
    /// `.proxyRefused` when it answers 4xx (407 or 401: our credentials,
    /// 403: its policy; configuration, not chance), and `.proxyFailed` when it answers
    /// 5xx (it could not reach the target), closes the connection, answers
    /// something else than HTTP, or not in time. No message contains the
    /// proxy's password.
    static func open(to host: String, port: Int, through proxy: OutboundProxy,
                     deadline: ContinuousClock.Instant) throws(SocketError) -> Int32 {
        let descriptor: Int32
        do {
            descriptor = try TCPSocket.openDescriptor(host: proxy.host, port: proxy.port, deadline: deadline)
        } catch {
            throw SocketError(.connectFailed, "proxy \(proxy): \(error.detail)")
        }
        do throws(SocketError) {
            try send(request(host: host, port: port, proxy: proxy), on: descriptor, proxy: proxy, deadline: deadline)
            let (status, reason) = try readAnswer(on: descriptor, proxy: proxy, deadline: deadline)
            let target = "\(authority(host)):\(port)"
            switch status {
            case 200..<300:
                return descriptor
            case 401, 407:
                // 407 by RFC 9110; tinyproxy answers wrong credentials with 401.
                throw SocketError(.proxyRefused, proxy.username == nil
                    ? "proxy \(proxy) asks for credentials (\(status) \(reason)) to reach \(target)"
                    : "proxy \(proxy) refused our credentials (\(status) \(reason)) to reach \(target)")
            case 400..<500:
                throw SocketError(.proxyRefused, "proxy \(proxy) refused CONNECT to \(target) (\(status) \(reason))")
            default:
                throw SocketError(.proxyFailed, "proxy \(proxy) could not open a tunnel to \(target) (\(status) \(reason))")
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The `CONNECT` request's bytes.
    static func request(host: String, port: Int, proxy: OutboundProxy) -> [UInt8] {
        let target = "\(authority(host)):\(port)"
        var text = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let authorization = proxy.authorization { text += "Proxy-Authorization: \(authorization)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// A host as it is written in an authority: IPv6 addresses in brackets.
    private static func authority(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private static func send(_ bytes: [UInt8], on descriptor: Int32, proxy: OutboundProxy,
                             deadline: ContinuousClock.Instant) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                offset += count
                continue
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw SocketError(.proxyFailed, "proxy \(proxy): sending CONNECT: \(String(cString: strerror(code)))")
            }
            guard TCPSocket.wait(descriptor, forWrite: true, until: deadline) else {
                throw SocketError(.proxyFailed, "proxy \(proxy) did not take CONNECT in time")
            }
        }
    }

    /// Reads the answer's head and nothing after it: each read first peeks,
    /// and only the head's bytes are taken off the socket, so that the
    /// tunnel's first bytes stay for TLS.
    private static func readAnswer(on descriptor: Int32, proxy: OutboundProxy,
                                   deadline: ContinuousClock.Instant) throws(SocketError) -> (Int, String) {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            guard TCPSocket.wait(descriptor, forWrite: false, until: deadline) else {
                throw SocketError(.proxyFailed, "proxy \(proxy) did not answer CONNECT in time")
            }
            let wanted = min(buffer.count, ProxyConnectAnswer.maximumLength + 1 - head.count)
            let peeked = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, wanted, Int32(MSG_PEEK)) }
            if peeked < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                throw SocketError(.proxyFailed, "proxy \(proxy): reading the CONNECT answer: \(String(cString: strerror(code)))")
            }
            guard peeked > 0 else {
                throw SocketError(.proxyFailed, "proxy \(proxy) closed the connection before answering CONNECT")
            }
            let answer = ProxyConnectAnswer.parse(head + buffer[..<peeked])
            let take: Int
            switch answer {
            case .incomplete: take = peeked
            case let .complete(_, _, length): take = length - head.count
            case let .malformed(why): throw SocketError(.proxyFailed, "proxy \(proxy) answered CONNECT badly: \(why)")
            }
            let taken = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, take, 0) }
            guard taken == take else {
                throw SocketError(.proxyFailed, "proxy \(proxy): reading the CONNECT answer failed")
            }
            head += buffer[..<take]
            if case let .complete(status, reason, _) = answer { return (status, reason) }
        }
    }
}
