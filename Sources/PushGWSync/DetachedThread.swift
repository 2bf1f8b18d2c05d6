#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread that runs a Swift closure, named for the
/// kernel: for pools that start and end their own threads on demand (the
/// avatar downloads), where a `Thread` object would outlive its use. The
/// closure is handed to the new thread retained and released when it
/// returns; no pointer reaches the caller.
public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name`; false (and `body`
    /// never runs) when the system refuses a thread.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let work = Unmanaged.passRetained(Work(name: name, body: body))
        var thread = pthread_t()
        guard pthread_create(&thread, &attributes, detachedThreadEntry, work.toOpaque()) == 0 else {
            work.release()
            return false
        }
        return true
    }

    /// What the new thread runs, boxed so that one pointer carries it.
    final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// Where every detached thread starts: takes back the retained work, names
/// the thread and runs it. A file-level constant, as C callbacks must be.
private let detachedThreadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    guard let argument else { return nil }
    let work = Unmanaged<DetachedThread.Work>.fromOpaque(argument).takeRetainedValue()
    ThreadName.setCurrent(work.name)
    work.body()
    return nil
}
