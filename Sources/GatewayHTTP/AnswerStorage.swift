import PushGWSync

/// The memory of answers the server has sent, kept for later answers to be
/// written into: a render's answer is one allocation of about 11 KiB (the
/// answer and the renderer's working room), which glibc serves from its
/// slow path; keeping and taking one here costs a fraction of that.
///
/// At most `kept` arrays, each of `minimumCapacity` to `maximumCapacity`
/// bytes: the others are freed as before. Only an array's memory is
/// meant for reuse, never its bytes. Used from any thread.
public final class AnswerStorage: Sendable {
    /// The most arrays kept (enough for both daemons' answers in flight).
    static let kept = 4
    /// Smaller answers' memory comes from glibc's fast path anyway.
    static let minimumCapacity = 2048
    /// Larger ones are not held on to.
    static let maximumCapacity = 64 * 1024

    private let spares = Locked<[[UInt8]]>([])

    public init() {}

    /// An array whose memory (its capacity) was a sent answer's, when one
    /// is kept; else an empty one. Its bytes mean nothing.
    public func take() -> [UInt8] {
        spares.withLock { $0.popLast() } ?? []
    }

    /// Keeps `body`'s memory for a later `take` when it is of a useful size
    /// and there is room; `body` is then left empty. Either way the caller
    /// is done with it.
    func keep(_ body: inout [UInt8]) {
        let capacity = body.capacity
        guard capacity >= Self.minimumCapacity, capacity <= Self.maximumCapacity else { return }
        spares.withLock { list in
            guard list.count < Self.kept else { return }
            // Moved in, not copied (a copy retained it, and `body`'s release followed).
            list.append([])
            swap(&list[list.count - 1], &body)
        }
    }

    /// How many arrays are kept (for tests and diagnostics).
    public var keptCount: Int { spares.withLock { $0.count } }
}
