#if canImport(Glibc)
import Glibc
#endif
/// How a connection's requests have HPACK index their header names
/// (`HTTP2ConnectionOptions`): some never indexed (a credential), some
/// indexed the first time on the connection and never after (PROTOCOLS.md
/// A1's rule for `apns-id`, `apns-expiration` and `apns-collapse-id`: the
/// name enters the tables once, and each later request carries it as a
/// reference instead of its text), the rest indexed as nghttp2 sees fit.
/// `:path` and `authorization` are never indexed whatever the lists say.
struct HeaderNaming: Sendable {
    /// How one header is indexed.
    enum Indexing: Equatable, Sendable {
        case indexed
        case neverIndexed
        /// Indexed the first time on a connection: name `n` of the list.
        case indexedOnce(Int)
    }

    private let unindexed: [[UInt8]]
    private let indexedOnce: [[UInt8]]
    /// Bit n set: some listed name has n bytes (63: 63 or more). A name of
    /// another length is indexed without a comparison.
    private let lengths: UInt64

    /// No name listed: every header indexed as nghttp2 sees fit.
    static let none = HeaderNaming(unindexed: [], indexedOnce: [])

    /// - Parameters:
    ///   - unindexed: header names (lowercase bytes) never indexed.
    ///   - indexedOnce: header names indexed the first time on a connection,
    ///     never after (at most 64; never indexed wins over indexed once).
    init(unindexed: [[UInt8]], indexedOnce: [[UInt8]]) {
        self.unindexed = unindexed
        self.indexedOnce = Array(indexedOnce.prefix(64))
        lengths = (unindexed + indexedOnce).reduce(0) { $0 | 1 << UInt64(min($1.count, 63)) }
    }

    /// How the header called `name` is indexed.
    func indexing(of name: UnsafeBufferPointer<UInt8>) -> Indexing {
        guard lengths & 1 << UInt64(min(name.count, 63)) != 0 else { return .indexed }
        if unindexed.contains(where: { Self.equal($0, name) }) { return .neverIndexed }
        if let place = indexedOnce.firstIndex(where: { Self.equal($0, name) }) { return .indexedOnce(place) }
        return .indexed
    }

    /// Byte equality, lengths first.
    private static func equal(_ listed: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard listed.count == name.count else { return false }
        return listed.withUnsafeBufferPointer { listed in name.isEmpty || memcmp(listed.baseAddress!, name.baseAddress!, name.count) == 0 }
    }
}

/// Which of its `HeaderNaming.indexedOnce` names a connection has not yet
/// sent: loop-thread state of one connection, changed as each block is
/// made (`RequestBytes.submit`).
struct HeaderIndexing: Sendable, Equatable {
    /// Bit n: name n not yet sent.
    private(set) var notYetIndexed: UInt64 = .max

    init() {}

    /// A block begins; returns what `notSent` needs to undo it.
    func start() -> UInt64 {
        notYetIndexed
    }

    /// Whether the block's next header, indexed as `indexing` says, goes
    /// indexed (else never indexed). A name indexed once is indexed by the
    /// first block that has it, never after.
    mutating func indexes(_ indexing: HeaderNaming.Indexing) -> Bool {
        switch indexing {
        case .indexed:
            return true
        case .neverIndexed:
            return false
        case let .indexedOnce(name):
            let bit: UInt64 = 1 << UInt64(name)
            guard notYetIndexed & bit != 0 else { return false }
            notYetIndexed &= ~bit
            return true
        }
    }

    /// The block was not sent (nghttp2 refused the stream): its names wait
    /// for the next block that has them.
    mutating func notSent(since before: UInt64) {
        notYetIndexed = before
    }
}
