import Glibc

/// The listening TCP socket on 127.0.0.1 (never any other address).
enum Listener {
    /// Binds and listens on 127.0.0.1:`port` (0 = ephemeral); returns the
    /// non-blocking descriptor and the bound port.
    static func open(port: Int) throws(APNsSimulatorError) -> (descriptor: Int32, port: Int) {
        guard (0...65535).contains(port) else {
            throw APNsSimulatorError(operation: "bind", detail: "port \(port) is out of range")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallFailure.error("socket") }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = SystemCallFailure.error("bind(127.0.0.1:\(port))")
            close(descriptor)
            throw error
        }
        guard listen(descriptor, 128) == 0 else {
            let error = SystemCallFailure.error("listen")
            close(descriptor)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let error = SystemCallFailure.error("getsockname")
            close(descriptor)
            throw error
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec
    /// socket with Nagle off; `nil` when none is pending.
    static func accept(from listener: Int32) -> Int32? {
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var noDelay: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }
}
