#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawn`, its output discarded (or appended
/// to `output`), reaped with `waitpid`: no run loop involved (Foundation's
/// `Process.waitUntilExit` waits on one, which a test running on the
/// cooperative pool may never turn).
///
/// Not `Sendable`: one test task starts, signals and waits for it.
public final class ChildProcess {
    public let pid: Int32
    private var exitStatus: Int32?

    /// - Parameters:
    ///   - environment: the child's whole environment; nil: this process's.
    ///   - output: a file that standard output and error are appended to; nil: discarded.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil, output: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // The child starts with no signal blocked and default handlers: a
        // thread of the test process may block SIGTERM, and a child would
        // inherit that mask and never stop.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let result: Int32
        if let envp {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else {
            throw RedisTestServerError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit {
        stop(signal: SIGKILL)
    }

    /// False once the program has exited (and has been reaped).
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// Waits for the program to exit; its exit code (or 128 + the signal).
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return Self.code(exitStatus) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        exitStatus = status
        return Self.code(status)
    }

    /// Sends `signal` unless it has exited, then waits for it.
    public func stop(signal: Int32) {
        guard isRunning else { return }
        Glibc.kill(pid, signal)
        wait()
    }

    private static func code(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
