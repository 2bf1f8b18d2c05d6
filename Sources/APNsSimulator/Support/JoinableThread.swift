import PushGWSync
internal import Glibc

/// The function every simulator thread starts in: takes back the retained
/// closure box and runs it. A file-level constant, as C callbacks must be.
private let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    guard let argument else { return nil }
    let body = Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue()
    body.run()
    return nil
}

/// The closure a thread runs, boxed so it can travel through `void *`.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// A POSIX thread that must be joined exactly once.
///
/// The simulator owns every thread it starts and joins each one in `stop()`
/// (or when a finished connection is reaped), so no thread outlives it.
struct JoinableThread: Sendable {
    private let handle: pthread_t

    /// Starts `body` on a new thread, named `name` for the kernel (top -H, perf).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(APNsSimulatorError) -> JoinableThread {
        var handle = pthread_t()
        let box = Unmanaged.passRetained(ThreadBody {
            ThreadName.setCurrent(name)
            body()
        })
        let result = pthread_create(&handle, nil, threadEntry, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw SystemCallFailure.errorForCode("pthread_create", result)
        }
        return JoinableThread(handle: handle)
    }

    /// Waits for the thread to finish. Call once, never from the thread itself.
    func join() {
        _ = pthread_join(handle, nil)
    }
}
