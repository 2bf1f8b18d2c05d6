import Synchronization
import PushGWSync

/// Every live connection thread and its wake-up pipe, so that `stop()` can
/// wake and join all of them and a changed stream limit reaches each one.
///
/// Ownership rule: an entry's `WakeSignal` is closed only after its thread
/// was joined, by whoever joined it (the reaper or `stop()`), so no thread
/// ever signals or polls a closed descriptor.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let wake: WakeSignal
        var thread: JoinableThread?
        var finished = false
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var stopping = false
    }

    private let state = Locked(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds a connection about to start; `false` when stopping or full.
    func register(_ number: Int, wake: WakeSignal) -> Bool {
        state.withLock { state in
            // Finished connections awaiting the reaper hold no slot: a client
            // reconnecting at once after closing is not turned away.
            guard !state.stopping, state.entries.values.count(where: { !$0.finished }) < capacity else { return false }
            state.entries[number] = Entry(wake: wake)
            return true
        }
    }

    /// Records the thread serving connection `number`.
    func attach(_ thread: JoinableThread, to number: Int) {
        state.withLock { $0.entries[number]?.thread = thread }
    }

    /// Drops a connection whose thread could not be started.
    func unregister(_ number: Int) {
        let entry = state.withLock { $0.entries.removeValue(forKey: number) }
        entry?.wake.close()
    }

    /// Called by a connection thread as its last act.
    func finish(_ number: Int) {
        state.withLock { $0.entries[number]?.finished = true }
    }

    /// Joins the threads of finished connections and frees their pipes.
    func reapFinished() {
        let done = state.withLock { state -> [Entry] in
            let numbers = state.entries.filter { $0.value.finished && $0.value.thread != nil }.map(\.key)
            return numbers.compactMap { state.entries.removeValue(forKey: $0) }
        }
        for entry in done {
            entry.thread?.join()
            entry.wake.close()
        }
    }

    /// Whether `beginStopping()` has run.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The number of connections not yet reaped.
    var count: Int { state.withLock { $0.entries.values.filter { !$0.finished }.count } }

    /// Wakes every connection thread (to re-read the stream limit).
    func wakeAll() {
        state.withLock { state in
            for entry in state.entries.values { entry.wake.signal() }
        }
    }

    /// Marks the registry stopping and wakes every connection thread.
    func beginStopping() {
        state.withLock { state in
            state.stopping = true
            for entry in state.entries.values { entry.wake.signal() }
        }
    }

    /// Joins every remaining thread and frees its pipe. Call after the
    /// accept thread has been joined, so no entry is added meanwhile.
    func joinAll() {
        let all = state.withLock { state -> [Entry] in
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in all {
            entry.thread?.join()
            entry.wake.close()
        }
    }
}
