import PushGWSync

/// The result of `work`, or `fallback` once `deadline` passes, whichever
/// comes first. `work` is not cancelled: it goes on and its result is
/// dropped (an access-token grant keeps filling the shared cache for the
/// next sends).
func firstBeforeDeadline<Value: Sendable>(_ deadline: ContinuousClock.Instant,
                                          _ work: @escaping @Sendable () async -> Value,
                                          orElse fallback: @escaping @Sendable () -> Value) async -> Value {
    let answer = OnceContinuation<Value>()
    return await withCheckedContinuation { continuation in
        answer.set(continuation)
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { answer.resume(fallback()) }
        }
        Task {
            let value = await work()
            timer.cancel()
            answer.resume(value)
        }
    }
}

/// A continuation resumed by whichever caller comes first; later calls do nothing.
private final class OnceContinuation<Value: Sendable>: Sendable {
    private let slot = Locked<CheckedContinuation<Value, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Value, Never>) {
        slot.withLock { $0 = continuation }
    }

    func resume(_ value: Value) {
        slot.withLock { slot in
            defer { slot = nil }
            return slot
        }?.resume(returning: value)
    }
}
