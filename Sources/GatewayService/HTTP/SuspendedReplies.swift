import Synchronization
import PushGWSync

/// The requests whose connection is suspended while their answer is being
/// prepared. Stopping the server answers each of them (libmicrohttpd aborts
/// the process if it is stopped with a connection suspended), and an answer
/// that comes after the stop is dropped instead of resuming a connection
/// that is gone.
final class SuspendedReplies: Sendable {
    private struct State {
        var waiting: [ObjectIdentifier: HTTPReply] = [:]
        /// No request is suspended any more.
        var closing = false
        /// The connections are gone: answers are dropped.
        var closed = false
    }

    private let state = Locked(State())
    private let waitingCount = Atomic<Int>(0)

    /// Requests waiting for their answer.
    var count: Int { waitingCount.load(ordering: .relaxed) }

    /// Registers `reply` before its connection is suspended. False when the
    /// server is stopping: the request must be answered at once instead.
    func add(_ reply: HTTPReply) -> Bool {
        state.withLock { state in
            guard !state.closing else { return false }
            state.waiting[ObjectIdentifier(reply)] = reply
            waitingCount.add(1, ordering: .relaxed)
            return true
        }
    }

    /// `reply` has its answer: forgets it and runs `resume` (which resumes
    /// its connection), unless the server has stopped and the connection is gone.
    func answered(_ reply: HTTPReply, resume: () -> Void) {
        state.withLock { state in
            guard state.waiting.removeValue(forKey: ObjectIdentifier(reply)) != nil else { return }
            waitingCount.subtract(1, ordering: .relaxed)
            if !state.closed { resume() }
        }
    }

    /// The server begins to stop: no request is suspended from now on.
    /// Returns those still waiting, for the server to answer.
    func close() -> [HTTPReply] {
        state.withLock { state in
            state.closing = true
            return Array(state.waiting.values)
        }
    }

    /// The connections are about to be freed: later answers are dropped.
    func finish() {
        state.withLock { $0.closed = true }
    }
}
