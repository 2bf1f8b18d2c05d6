#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PushGWSync

/// Resolves a host name to its addresses with a deadline, for a transfer
/// through a proxy whose target addresses must be checked (the avatar
/// guard): libcurl would let the proxy resolve the name, and no address of
/// the target would ever be seen here.
///
/// `getaddrinfo` has no timeout of its own; it runs on a detached thread of
/// its own, and a lookup past the deadline is abandoned (the thread ends by
/// itself when the resolver gives up), as libcurl's threaded resolver does.
enum CurlAddressLookup {
    /// The network-order bytes of each address of `host` (4 or 16), in the
    /// resolver's order, without repeats; an address literal is its own
    /// answer.
    static func addresses(of host: String, within timeout: Duration) throws(CurlFailure) -> [[UInt8]] {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<[[UInt8]], CurlFailure>?>(nil)
        let started = DetachedThread.start(name: "pushgw-resolve") {
            let answer = resolve(host)
            result.withLock { $0 = answer }
            done.signal()
        }
        guard started else {
            throw CurlFailure(call: "pthread_create", message: "no thread for the lookup of \(host)", kind: .setup,
                              beforeSending: true)
        }
        let milliseconds = max(1, Int((timeout / .milliseconds(1)).rounded(.up)))
        guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success, let answer = result.withLock({ $0 }) else {
            throw CurlFailure(call: "getaddrinfo", message: "the lookup of \(host) did not end within \(timeout)",
                              kind: .timedOut, beforeSending: true)
        }
        return try answer.get()
    }

    private static func resolve(_ host: String) -> Result<[[UInt8]], CurlFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(CurlFailure(call: "getaddrinfo", message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))",
                                        kind: .couldNotResolveHost, beforeSending: true))
        }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            guard let address = current.pointee.ai_addr else { continue }
            var bytes: [UInt8]
            switch current.pointee.ai_family {
            case AF_INET:
                var v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr
                bytes = withUnsafeBytes(of: &v4) { Array($0) }
            case AF_INET6:
                var v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
                bytes = withUnsafeBytes(of: &v6) { Array($0) }
            default:
                continue
            }
            if !addresses.contains(bytes) { addresses.append(bytes) }
        }
        return .success(addresses)
    }

    /// An address as a `CURLOPT_CONNECT_TO` host: dotted quad, or IPv6 in brackets.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "" }
        let text = String(cString: buffer)
        return family == AF_INET6 ? "[\(text)]" : text
    }
}
