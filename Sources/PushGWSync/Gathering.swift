/// The results of work split into parts, filed by position until the last
/// part is in: each part brings the results of its positions, and the call
/// that adds the last part gets every result, in order. Used behind a lock
/// where parts finish on different threads (the connection pool's shares,
/// the dispatcher's provider batches). Inlinable, so each use is
/// specialized for its element type (across modules a generic struct would
/// otherwise look up its type metadata and iterate generically at run time).
public struct Gathering<Element> {
    @usableFromInline var results: [Element?]
    @usableFromInline var partsLeft: Int
    @usableFromInline let missing: Element

    /// - Parameters:
    ///   - count: positions in all.
    ///   - parts: how many `add` calls complete it.
    ///   - missing: the result of a position no part brought (a caller bug:
    ///     still an answer, never a crash).
    @inlinable
    public init(count: Int, parts: Int, missing: Element) {
        results = Array(repeating: nil, count: count)
        partsLeft = parts
        self.missing = missing
    }

    /// Files one part's results at `positions`; returns all of them once
    /// every part is in, else nil.
    @inlinable
    public mutating func add(_ positions: [Int], _ part: [Element]) -> [Element]? {
        for index in 0..<min(positions.count, part.count) { results[positions[index]] = part[index] }
        return partAdded()
    }

    /// As `add(_:_:)`, moving the results out of `part` (left empty) rather
    /// than copying them: no retain of what each holds (measured: 4 fewer
    /// per request of the APNs benchmark on 4 connections).
    @inlinable
    public mutating func add(_ positions: [Int], moving part: inout [Element]) -> [Element]? {
        // From the end, so that each result leaves `part` without a copy.
        while let result = part.popLast() {
            if part.count < positions.count { results[positions[part.count]] = consume result }
        }
        return partAdded()
    }

    /// Counts a part in; once it is the last, every result, moved out of
    /// `results` (the gathering keeps no copy of what it gives back).
    @inlinable
    mutating func partAdded() -> [Element]? {
        partsLeft -= 1
        guard partsLeft == 0 else { return nil }
        var all: [Element] = []
        all.reserveCapacity(results.count)
        for index in results.indices { all.append(results[index].take() ?? missing) }
        return all
    }
}
