import Synchronization
import PushGWSync

/// A small, bounded set of threads for blocking work (libcurl transfers), so
/// that none of it runs on Swift's cooperative pool.
///
/// Threads are started on demand, up to `limit`, and exit as soon as the
/// queue is empty, so an idle resolver holds no thread and needs no
/// shutdown. Jobs wait in FIFO order when all threads are busy, except
/// that one host gets at most `perHostLimit` threads at once: a slow host
/// (a tarpit, a CDN in trouble) that many senders point at cannot hold them
/// all, and the other hosts' jobs pass its waiting ones. The wait is
/// bounded both ways: a job that waited longer than `staleAfter`
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
        /// The host it downloads from (as the policy check parsed it), as
        /// `perHostLimit` counts it.
        var host = ""
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
        /// Jobs running per host (absent: none).
        var runningPerHost: [String: Int] = [:]
        var waiting: Int { queue.count - head }
    }

    private let limit: Int
    /// The most threads one host's jobs hold at once.
    let perHostLimit: Int
    /// The most jobs waiting for a thread.
    let queueLimit: Int
    private let staleAfter: Duration
    private let state = Locked(State())

    /// - Parameters:
    ///   - limit: threads at most.
    ///   - queueLimit: jobs waiting at most; nil: 64 per thread.
    ///   - perHostLimit: threads one host's jobs hold at most; nil: half of
    ///     `limit` (at least 1).
    ///   - staleAfter: how long a job may wait before it is abandoned.
    init(limit: Int, queueLimit: Int? = nil, perHostLimit: Int? = nil, staleAfter: Duration) {
        self.limit = max(limit, 1)
        self.queueLimit = max(queueLimit ?? 64 * self.limit, 1)
        self.perHostLimit = min(max(perHostLimit ?? self.limit / 2, 1), self.limit)
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

    /// Runs queued jobs until none is left that this thread may take, then
    /// lets the thread end. A job that went stale while it waited is
    /// abandoned instead. (A job left waiting for its host is taken by the
    /// thread that ends one of that host's running jobs.)
    fileprivate func drain() {
        var finished: String?
        while let queued = next(finishing: finished) {
            if ContinuousClock.now >= queued.staleAt {
                queued.job.abandon(.timeout)
            } else {
                queued.job.run()
            }
            finished = queued.job.host
        }
    }

    /// Counts the end of the job for host `finished`, then takes the first
    /// waiting job whose host has a thread to spare; nil ends the thread.
    private func next(finishing finished: String?) -> Queued? {
        state.withLock { state in
            if let finished {
                let left = state.runningPerHost[finished, default: 1] - 1
                state.runningPerHost[finished] = left > 0 ? left : nil
            }
            guard let index = state.queue[state.head...].firstIndex(where: {
                state.runningPerHost[$0.job.host, default: 0] < perHostLimit
            }) else {
                if state.head == state.queue.count {
                    state.queue = []
                    state.head = 0
                }
                state.running -= 1
                return nil
            }
            let job = state.queue[index]
            state.runningPerHost[job.job.host, default: 0] += 1
            if index == state.head {
                state.head += 1
            } else {
                state.queue.remove(at: index)  // passes a busy host's jobs: at most queueLimit moved
            }
            if state.head >= 64, state.head * 2 >= state.queue.count {
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }

    /// Starts one detached thread running `drain()`; false when the system refuses.
    private func spawn() -> Bool {
        DetachedThread.start(name: "pushgw-avatar") { self.drain() }
    }
}
