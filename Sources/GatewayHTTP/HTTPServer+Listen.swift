// HTTPServer's listening socket: binds and listens on the configured
// address before the daemons start (each accepts on it).

#if canImport(Glibc)
import Glibc
#endif
internal import CMicroHTTPD

extension HTTPServer {
    /// Binds and listens on `address:port` (port 0: any free port).
    static func listen(_ address: String, port: Int) throws(HTTPServerStartError) -> (descriptor: Int32, port: Int) {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, address, &ipv6) == 1 {
            family = AF_INET6
        } else {
            throw HTTPServerStartError(.listen, "\(address) is not an IP address (use e.g. 127.0.0.1 or 0.0.0.0)")
        }
        // Linux's SOCK_STREAM | SOCK_CLOEXEC. Spelled out because in release builds
        // <sys/socket.h>'s enum is claimed by the CMicroHTTPD module map and is not
        // visible under that name here.
        let streamCloseOnExec: Int32 = 1 | 0o2000000
        let descriptor = socket(family, streamCloseOnExec, 0)
        guard descriptor >= 0 else { throw HTTPServerStartError(.listen, "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        var length: socklen_t
        if family == AF_INET {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
            socketAddress.sin_addr = ipv4
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: socketAddress) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(port).bigEndian)
            socketAddress.sin6_addr = ipv6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: socketAddress) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, Glibc.listen(descriptor, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerStartError(.listen, "cannot listen on \(address):\(port): \(reason)")
        }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let boundPort = withUnsafeBytes(of: storage) { bytes -> Int in
            // sin_port and sin6_port sit at the same offset, in network order.
            Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        }
        return (descriptor, boundPort)
    }
}
