import Synchronization

/// Who holds a claim: one dispatch of one gateway process. The instance is
/// random per process (`DedupClaimOwner.Source`), the sequence counts its
/// dispatches, so no two dispatches anywhere share an owner. Two words, no
/// allocation; a store across the network writes it as `description`.
public struct DedupClaimOwner: Sendable, Hashable, CustomStringConvertible {
    public let instance: UInt64
    public let sequence: UInt64

    public init(instance: UInt64, sequence: UInt64) {
        self.instance = instance
        self.sequence = sequence
    }

    /// `instance-sequence` in hexadecimal (what a shared store keeps as the claim's value).
    public var description: String { String(instance, radix: 16) + "-" + String(sequence, radix: 16) }
}

extension DedupClaimOwner {
    /// Owners for one process's dispatches: a random instance, drawn once,
    /// and a counter. Thread-safe.
    public final class Source: Sendable {
        public let instance: UInt64
        private let counter = Atomic<UInt64>(0)

        public init(instance: UInt64 = UInt64.random(in: 1...UInt64.max)) {
            self.instance = instance
        }

        /// A new owner, never given before by this source.
        public func next() -> DedupClaimOwner {
            DedupClaimOwner(instance: instance, sequence: counter.add(1, ordering: .relaxed).newValue)
        }
    }
}
