#if PUSHGW_TSAN
#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock, for state shared between threads.
///
/// In normal builds this is `Synchronization.Mutex`. In a ThreadSanitizer
/// build (`-Xswiftc -DPUSHGW_TSAN`, see scripts/sanitizers.sh) it is this
/// class around a `pthread_mutex_t`, because ThreadSanitizer does not see
/// `Mutex`'s futex hand-over on Linux and reports every contended
/// `withLock` as a race; with pthread locks it sees the ordering and its
/// reports are real.
///
/// `@unchecked Sendable`: `value` is only read or written inside
/// `withLock`, between `pthread_mutex_lock` and `pthread_mutex_unlock` of
/// the one mutex this instance owns.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
public import Synchronization

/// A value behind a lock, for state shared between threads: in normal
/// builds exactly `Synchronization.Mutex`. A ThreadSanitizer build
/// (`-Xswiftc -DPUSHGW_TSAN`) swaps in a pthread-based lock that
/// ThreadSanitizer understands (see the other branch of this file).
public typealias Locked<Value> = Mutex<Value>
#endif
