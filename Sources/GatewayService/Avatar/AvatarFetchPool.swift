import Glibc
import Synchronization
import PushGWSync

/// Where every pool thread starts: takes back the retained pool and drains
/// its queue. A file-level constant, as C callbacks must be.
private let avatarWorkerEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
    guard let argument else { return nil }
    ThreadName.setCurrent("pushgw-avatar")
    let pool = Unmanaged<AvatarFetchPool>.fromOpaque(argument).takeRetainedValue()
    pool.drain()
    return nil
}

/// A small, bounded set of threads for blocking work (libcurl transfers), so
/// that none of it runs on Swift's cooperative pool.
///
/// Threads are started on demand, up to `limit`, and exit as soon as the
/// queue is empty, so an idle resolver holds no thread and needs no
/// shutdown. Jobs wait in FIFO order when all threads are busy, and the
/// wait is bounded both ways: a job that waited longer than `staleAfter`
/// (everyone who wanted it has stopped waiting) is abandoned instead of
/// run, and a job that finds `queueLimit` jobs waiting is abandoned at
/// once. A dead avatar host that many senders point at fills neither memory
/// nor the threads' time. Thread-safe: the queue and the thread count live
/// in a `Mutex`.
final class AvatarFetchPool: Sendable {
    /// A unit of blocking work, and what to do instead when it is not run
    /// (with why: `fetchFailed` when no thread could be started,
    /// `timeout` when it waited too long, `queueFull`).
    struct Job: Sendable {
        let run: @Sendable () -> Void
        let abandon: @Sendable (AvatarDropReason) -> Void
    }

    private struct Queued {
        let job: Job
        let staleAt: ContinuousClock.Instant
    }

    private struct State {
        var queue: [Queued] = []
        var head = 0
        var running = 0
        var waiting: Int { queue.count - head }
    }

    private let limit: Int
    /// The most jobs waiting for a thread.
    let queueLimit: Int
    private let staleAfter: Duration
    private let state = Locked(State())

    /// - Parameters:
    ///   - limit: threads at most.
    ///   - queueLimit: jobs waiting at most; nil: 64 per thread.
    ///   - staleAfter: how long a job may wait before it is abandoned.
    init(limit: Int, queueLimit: Int? = nil, staleAfter: Duration) {
        self.limit = max(limit, 1)
        self.queueLimit = max(queueLimit ?? 64 * self.limit, 1)
        self.staleAfter = staleAfter
    }

    /// Jobs waiting for a thread (for tests).
    var waitingJobs: Int { state.withLock { $0.waiting } }

    /// Queues `job`, starting a thread for it if fewer than `limit` run; or
    /// abandons it with `queueFull` when `queueLimit` jobs already wait.
    func submit(_ job: Job) {
        let staleAt = ContinuousClock.now + staleAfter
        let admitted: (queued: Bool, startThread: Bool) = state.withLock { state in
            guard state.waiting < queueLimit else { return (false, false) }
            state.queue.append(Queued(job: job, staleAt: staleAt))
            guard state.running < limit else { return (true, false) }
            state.running += 1
            return (true, true)
        }
        guard admitted.queued else { return job.abandon(.queueFull) }
        guard admitted.startThread else { return }
        guard spawn() else {
            // No thread: if none is left to drain the queue, nothing ever will.
            let orphans = state.withLock { state -> [Queued] in
                state.running -= 1
                guard state.running == 0 else { return [] }
                let orphans = Array(state.queue[state.head...])
                state.queue = []
                state.head = 0
                return orphans
            }
            orphans.forEach { $0.job.abandon(.fetchFailed) }
            return
        }
    }

    /// Runs queued jobs until none is left, then lets the thread end. A job
    /// that went stale while it waited is abandoned instead.
    fileprivate func drain() {
        while let queued = next() {
            if ContinuousClock.now >= queued.staleAt {
                queued.job.abandon(.timeout)
            } else {
                queued.job.run()
            }
        }
    }

    private func next() -> Queued? {
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
