#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawn`, its output discarded, reaped with
/// `waitpid`: no run loop involved (Foundation's `Process.waitUntilExit`
/// waits on one, which a test running on the cooperative pool may never turn).
final class ChildProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    init(executable: String, arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw RedisTestServerError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit {
        stop(signal: SIGKILL)
    }

    /// False once the program has exited (and has been reaped).
    var isRunning: Bool {
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
    func wait() -> Int32 {
        if let exitStatus { return Self.code(exitStatus) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        exitStatus = status
        return Self.code(status)
    }

    /// Sends `signal` unless it has exited, then waits for it.
    func stop(signal: Int32) {
        guard isRunning else { return }
        Glibc.kill(pid, signal)
        wait()
    }

    private static func code(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
