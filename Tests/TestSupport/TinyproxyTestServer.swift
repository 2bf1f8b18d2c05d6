#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A real HTTP proxy for tests: Debian's `tinyproxy`, started in the
/// foreground on a free loopback port with a configuration file of its own
/// in a temporary directory (the system service the package may run is
/// never touched), and stopped by `stop()` or when released.
///
/// It logs every request at the `Connect` level, so a test reads from
/// `connectTargets` which `host:port` pairs it was asked to tunnel to.
///
/// `@unchecked Sendable`: `process` is replaced only by `start`, `stop` and
/// `kill`, which a test calls from one task at a time; the rest is fixed at init.
public final class TinyproxyTestServer: @unchecked Sendable {
    /// What to start.
    public struct Options: Sendable {
        /// Basic credentials the proxy requires (`BasicAuth`); nil: none.
        public var credentials: (user: String, password: String)?
        /// Ports `CONNECT` may reach (`ConnectPort`); others are refused with
        /// 403. Empty: every port.
        public var connectPorts: [Int]
        /// The loopback address it listens on.
        public var address: String

        public init(credentials: (user: String, password: String)? = nil, connectPorts: [Int] = [], address: String = "127.0.0.1") {
            self.credentials = credentials
            self.connectPorts = connectPorts
            self.address = address
        }
    }

    public let options: Options
    public let port: Int
    let directory: URL
    private var process: ChildProcess?

    /// Whether `tinyproxy` is installed (`scripts/install-deps`).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tinyproxy") }

    public init(_ options: Options = Options()) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgw-tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try RedisTestServer.freeLoopbackPort()
        try writeConfiguration()
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `http://ADDRESS:PORT`, with `user:password@` given explicitly.
    public func url(user: String? = nil, password: String? = nil) -> String {
        guard let user else { return "http://\(options.address):\(port)" }
        return "http://\(user):\(password ?? "")@\(options.address):\(port)"
    }

    /// The URL with the configured credentials, if any.
    public var url: String { url(user: options.credentials?.user, password: options.credentials?.password) }

    private var logFile: URL { directory.appendingPathComponent("tinyproxy.log") }

    private func writeConfiguration() throws {
        var lines = [
            "Port \(port)", "Listen \(options.address)", "Timeout 30", "MaxClients 64", "Allow 127.0.0.0/8",
            "LogLevel Connect", "LogFile \"\(logFile.path)\"", "PidFile \"\(directory.appendingPathComponent("pid").path)\"",
            "DisableViaHeader Yes",
        ]
        if let credentials = options.credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
        lines += options.connectPorts.map { "ConnectPort \($0)" }
        // tinyproxy wants a user to run as when started as root; the
        // current one keeps the temporary directory writable.
        if getuid() == 0 { lines += ["User root", "Group root"] }
        try (lines.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("tinyproxy.conf"),
                                                         atomically: true, encoding: .utf8)
    }

    /// Starts the proxy (again) on its port and waits until it accepts connections.
    public func start() throws {
        let started = try ChildProcess(executable: "/usr/bin/tinyproxy",
                                       arguments: ["-d", "-c", directory.appendingPathComponent("tinyproxy.conf").path],
                                       output: directory.appendingPathComponent("stderr.log").path)
        process = started
        let (address, port) = (options.address, port)
        try blockUntil("tinyproxy accepts connections on \(address):\(port)", within: .seconds(20), every: .milliseconds(10)) {
            started.isRunning ? RedisTestServer.accepts(address: address, port: port) : true
        }
        guard started.isRunning else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
            throw RedisTestServerError(description: "tinyproxy exited at start: \(log.suffix(2000))")
        }
    }

    /// Stops the proxy (SIGTERM) and waits for it to exit.
    public func stop() {
        process?.stop(signal: SIGTERM)
        process = nil
    }

    /// Kills the proxy (SIGKILL), as a crash would: its tunnels are cut.
    public func kill() {
        process?.stop(signal: SIGKILL)
        process = nil
    }

    /// Every `host:port` the proxy was asked to `CONNECT` to, in order
    /// (also the refused ones).
    public var connectTargets: [String] {
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "): CONNECT ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// The proxy's log, for a failure message.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
}
