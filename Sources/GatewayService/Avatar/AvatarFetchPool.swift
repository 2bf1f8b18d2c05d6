internal import CThreadShims
import Glibc
import Synchronization
import PushGWSync

/// Where every pool thread starts: takes back the retained pool and drains
/// its queue. A file-level constant, as C callbacks must be.
private let avatarWorkerEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    guard let argument else { return nil }
    _ = pgw_name_current_thread("pushgw-avatar")
    let pool = Unmanaged<AvatarFetchPool>.fromOpaque(argument).takeRetainedValue()
    pool.drain()
    return nil
}

/// A small, bounded set of threads for blocking work (libcurl transfers), so
/// that none of it runs on Swift's cooperative pool.
///
/// Threads are started on demand, up to `limit`, and exit as soon as the
/// queue is empty, so an idle resolver holds no thread and needs no
/// shutdown. Jobs wait in FIFO order when all threads are busy. Thread-safe:
/// the queue and the thread count live in a `Mutex`.
final class AvatarFetchPool: Sendable {
    /// A unit of blocking work, and what to do instead if no thread can ever run it.
    struct Job: Sendable {
        let run: @Sendable () -> Void
        let abandon: @Sendable () -> Void
    }

    private struct State {
        var queue: [Job] = []
        var head = 0
        var running = 0
    }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Queues `job`, starting a thread for it if fewer than `limit` run.
    func submit(_ job: Job) {
        let startThread = state.withLock { state in
            state.queue.append(job)
            guard state.running < limit else { return false }
            state.running += 1
            return true
        }
        guard startThread else { return }
        guard spawn() else {
            // No thread: if none is left to drain the queue, nothing ever will.
            let orphans = state.withLock { state -> [Job] in
                state.running -= 1
                guard state.running == 0 else { return [] }
                let orphans = Array(state.queue[state.head...])
                state.queue = []
                state.head = 0
                return orphans
            }
            orphans.forEach { $0.abandon() }
            return
        }
    }

    /// Runs queued jobs until none is left, then lets the thread end.
    fileprivate func drain() {
        while let job = next() {
            job.run()
        }
    }

    private func next() -> Job? {
        state.withLock { state in
            guard state.head < state.queue.count else {
                state.queue = []
                state.head = 0
                state.running -= 1
                return nil
            }
            let job = state.queue[state.head]
            state.head += 1
            if state.head >= 64, state.head * 2 >= state.queue.count {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }

    /// Starts one detached thread running `drain()`; false when the system refuses.
    private func spawn() -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        guard pthread_create(&thread, &attributes, avatarWorkerEntry, retained.toOpaque()) == 0 else {
            retained.release()
            return false
        }
        return true
    }
}
