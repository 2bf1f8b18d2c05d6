#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A real `redis-server` (the Debian package) for tests: started on a free
/// loopback port, in a temporary directory, with no persistence (no RDB,
/// no AOF), and stopped by `stop()` or when released. With `tls`, it
/// listens on TLS only (`--port 0 --tls-port`), with a CA and a server
/// certificate for 127.0.0.1 made by the `openssl` command at start, and
/// asks no client certificate. `users` are ACL users (`--user` rules); the
/// `DEBUG` command is on, for `DEBUG SLEEP`.
///
/// `@unchecked Sendable`: `process` is replaced only by `start`, `stop`,
/// `kill` and `restart`, which a test calls from one task at a time (they are
/// not meant to race each other); the rest is fixed at init.
public final class RedisTestServer: @unchecked Sendable {
    /// What to start.
    public struct Options: Sendable {
        public var tls: Bool
        /// ACL rules per user, such as `["alice", "on", ">secret", "~*", "&*", "+@all"]`.
        public var users: [[String]]
        /// `requirepass`: the `default` user's password.
        public var password: String?

        public init(tls: Bool = false, users: [[String]] = [], password: String? = nil) {
            self.tls = tls
            self.users = users
            self.password = password
        }
    }

    public let options: Options
    public let port: Int
    /// The temporary directory: log, certificates.
    let directory: URL
    /// The CA that signed the TLS server certificate (with `tls`).
    public var caFile: String { directory.appendingPathComponent("ca.crt").path }
    private var process: ChildProcess?

    /// Whether `redis-server` is installed (`scripts/install-deps`).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") }

    public init(_ options: Options = Options()) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgw-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freeLoopbackPort()
        if options.tls { try makeCertificates() }
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://127.0.0.1:PORT` or `rediss://…`, with no credentials.
    public var url: String { "\(options.tls ? "rediss" : "redis")://127.0.0.1:\(port)" }

    /// Starts the server (again) on its port and waits until it accepts connections.
    public func start() throws {
        var arguments = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path,
                         "--daemonize", "no", "--logfile", directory.appendingPathComponent("redis.log").path,
                         "--enable-debug-command", "yes", "--protected-mode", "no"]
        if options.tls {
            arguments += ["--port", "0", "--tls-port", String(port),
                          "--tls-cert-file", directory.appendingPathComponent("server.crt").path,
                          "--tls-key-file", directory.appendingPathComponent("server.key").path,
                          "--tls-ca-cert-file", caFile, "--tls-auth-clients", "no"]
        } else {
            arguments += ["--port", String(port)]
        }
        if let password = options.password { arguments += ["--requirepass", password] }
        for user in options.users { arguments += ["--user"] + user }
        let started = try ChildProcess(executable: "/usr/bin/redis-server", arguments: arguments)
        process = started
        try blockUntil("redis-server accepts connections on 127.0.0.1:\(port)", within: .seconds(20), every: .milliseconds(10)) {
            started.isRunning ? Self.accepts(port: port) : true
        }
        guard started.isRunning else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
            throw RedisTestServerError(description: "redis-server exited at start: \(log.suffix(2000))")
        }
    }

    /// Stops the server (SIGTERM) and waits for it to exit.
    public func stop() {
        process?.stop(signal: SIGTERM)
        process = nil
    }

    /// Kills the server (SIGKILL), as a crash would, and waits for it to exit.
    public func kill() {
        process?.stop(signal: SIGKILL)
        process = nil
    }

    /// The server, killed and started again on the same port (empty: no persistence).
    public func restart() throws {
        kill()
        try start()
    }

    // MARK: Certificates, ports, processes

    private func makeCertificates() throws {
        let path = directory.path
        try Self.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                 "-keyout", "\(path)/ca.key", "-out", "\(path)/ca.crt", "-days", "2", "-subj", "/CN=pushgw test Redis CA"])
        try Self.run("openssl", ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                 "-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(path)/server.ext", atomically: true, encoding: .utf8)
        try Self.run("openssl", ["x509", "-req", "-in", "\(path)/server.csr", "-CA", "\(path)/ca.crt", "-CAkey", "\(path)/ca.key",
                                 "-CAcreateserial", "-out", "\(path)/server.crt", "-days", "2", "-extfile", "\(path)/server.ext"])
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let status = try ChildProcess(executable: "/usr/bin/\(tool)", arguments: arguments).wait()
        guard status == 0 else {
            throw RedisTestServerError(description: "\(tool) \(arguments.prefix(2).joined(separator: " ")) failed: \(status)")
        }
    }

    /// A port the kernel picks on 127.0.0.1, free when this returns.
    public static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RedisTestServerError(description: "socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw RedisTestServerError(description: "bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a TCP connect to `address`:`port` succeeds.
    static func accepts(address host: String = "127.0.0.1", port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// The test Redis server could not be started.
public struct RedisTestServerError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
