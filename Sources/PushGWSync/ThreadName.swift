internal import CThreadShims

/// Names threads for the kernel, so `top -H`, `perf` and
/// `/proc/PID/task/*/comm` tell the gateway's threads apart (Foundation's
/// `Thread.name` does not reach the kernel on Linux).
public enum ThreadName {
    /// Names the calling thread; Linux keeps the first 15 bytes of `name`.
    public static func setCurrent(_ name: String) {
        _ = pgw_name_current_thread(name)
    }
}
