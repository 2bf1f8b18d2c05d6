import Synchronization

/// Admits `/v1/notify` requests until the gateway closes it for shutdown,
/// and counts the admitted ones still in progress: the drain waits for
/// exactly those, and no notification starts after it began. Before it
/// closes, the shutdown is announced (readiness fails, admissions go on)
/// for the shutdown delay.
///
/// One atomic word holds the count and the "closed" and "announced" bits, so an
/// admission and `close()` are ordered by it: a request is either refused
/// (it saw the bit) or counted before the drain looked (the drain sees it).
/// Nothing can be admitted unseen between the drain's check and the stop.
public final class RequestGate: Sendable {
    private static let closedBit = 1 << 62
    private static let announcedBit = 1 << 61
    private let word = Atomic<Int>(0)

    public init() {}

    /// Counts one more request in progress; false (counting nothing) once closed.
    public func admit() -> Bool {
        let after = word.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        guard after & Self.closedBit == 0 else {
            release()
            return false
        }
        return true
    }

    /// An admitted request was answered (or abandoned by the stop).
    public func release() {
        word.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// Shutdown has started: `isShuttingDown` from now on, while requests
    /// are still admitted (the shutdown delay).
    public func announceShutdown() {
        word.bitwiseOr(Self.announcedBit, ordering: .sequentiallyConsistent)
    }

    /// Refuses every later admission (and announces the shutdown, if that was not done).
    public func close() {
        word.bitwiseOr(Self.closedBit | Self.announcedBit, ordering: .sequentiallyConsistent)
    }

    /// True once `close()` ran: no notification is admitted.
    public var isClosed: Bool {
        word.load(ordering: .sequentiallyConsistent) & Self.closedBit != 0
    }

    /// True once shutdown was announced or the gate closed: not ready.
    public var isShuttingDown: Bool {
        word.load(ordering: .sequentiallyConsistent) & Self.announcedBit != 0
    }

    /// Admitted requests not yet released. A refused admission may show
    /// here for an instant (it counts, sees the bit, and uncounts).
    public var inProgress: Int {
        word.load(ordering: .sequentiallyConsistent) & ~(Self.closedBit | Self.announcedBit)
    }
}
