import Synchronization
import PushGWSync

/// The requests whose connection is suspended while their answer is being
/// prepared. Stopping the server takes them all (libmicrohttpd aborts the
/// process if it is stopped with a connection suspended) and resumes each
/// connection itself; an answer that comes after that finds its request
/// gone and resumes nothing.
final class SuspendedReplies: Sendable {
    private struct State {
        var waiting: [ObjectIdentifier: HTTPReply] = [:]
        /// No request is suspended any more.
        var closing = false
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
    /// its connection), unless the server, stopping, has taken it already.
    func answered(_ reply: HTTPReply, resume: () -> Void) {
        state.withLock { state in
            guard state.waiting.removeValue(forKey: ObjectIdentifier(reply)) != nil else { return }
            waitingCount.subtract(1, ordering: .relaxed)
            resume()
        }
    }

    /// The server begins to stop: no request is suspended from now on.
    /// Returns those still waiting, forgotten here: the server resumes each
    /// of them itself, and their own answers, if they come, resume nothing.
    func close() -> [HTTPReply] {
        state.withLock { state in
            state.closing = true
            defer {
                state.waiting.removeAll()
                waitingCount.store(0, ordering: .relaxed)
            }
            return Array(state.waiting.values)
        }
    }
}
