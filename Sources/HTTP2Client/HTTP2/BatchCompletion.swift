/// The requests of a group sent together, their results, and what to call
/// when the last of them is done: one wake-up of the caller per batch instead
/// of one per request, which is what lets a 500-recipient event go out at the
/// connection's speed. The requests' bytes are copied once, for the whole
/// batch, into the `RequestBytes` that nghttp2 reads them from.
///
/// `@unchecked Sendable`: before the batch is handed to a connection's loop
/// thread only the sending thread touches it; afterwards only the loop thread
/// does. `deliver` is called exactly once, when `remaining` hits 0; `requests`
/// and `bytes` never change.
final class BatchCompletion: @unchecked Sendable {
    typealias Results = [Result<HTTP2Response, TransportError>]
    /// The bytes of the requests this batch sends, requests
    /// `offset ..< offset + count` of `requests` (a pool's share of a larger
    /// group, not copied out of it); result `i` is for request `offset + i`.
    let bytes: RequestBytes
    /// The requests themselves, for the headers a response repeats.
    let requests: HTTP2Requests
    let offset: Int
    /// One stored property for everything `complete` changes.
    private var state: State
    /// Takes the results (`consuming`): a receiver may move each one out
    /// (the pool's `Gathering`) instead of copying it.
    private let deliver: @Sendable (consuming Results) -> Void

    private struct State {
        /// Filled in place (no optional per result to unwrap into a second
        /// array at the end); `filled` says which positions hold their real result.
        var results: Results
        var filled: [Bool]
        var remaining: Int

        /// Files `result`; the results once the last one is in (handed over,
        /// not kept), else nil. A second result for a position, or any after
        /// the last, is ignored.
        mutating func add(_ index: Int, _ result: consuming Result<HTTP2Response, TransportError>) -> Results? {
            guard remaining > 0 else { return nil }
            if filled.isEmpty {
                remaining = 0
                return [result]
            }
            guard !filled[index] else { return nil }
            filled[index] = true
            results[index] = consume result
            remaining -= 1
            guard remaining == 0 else { return nil }
            var delivered: Results = []
            swap(&delivered, &results)
            return delivered
        }
    }

    /// - Parameters:
    ///   - range: the positions of `requests` to send; nil: all.
    ///   - authority: the `:authority` of the connection that sends them.
    ///   - naming: how that connection has HPACK index their header names.
    init(requests: HTTP2Requests, range: Range<Int>? = nil, authority: String = "localhost", naming: HeaderNaming = .none,
         deliver: @escaping @Sendable (consuming Results) -> Void) {
        self.requests = requests
        let range = range ?? requests.indices
        bytes = RequestBytes(requests, range: range, authority: authority, naming: naming)
        offset = range.lowerBound
        let count = range.count
        // A batch of one (the usual notify: one device per provider) needs no
        // array to gather into: `remaining` says whether it has finished.
        state = State(results: count == 1 ? [] : Array(repeating: .failure(Self.placeholder), count: count),
                      filled: count == 1 ? [] : Array(repeating: false, count: count), remaining: count)
        self.deliver = deliver
        if count == 0 { deliver([]) }
    }

    /// As above, for requests each complete in itself.
    convenience init(requests: [HTTP2Request], range: Range<Int>? = nil, deliver: @escaping @Sendable (consuming Results) -> Void) {
        self.init(requests: HTTP2Requests(requests), range: range, deliver: deliver)
    }

    /// What a position holds until its result arrives (never delivered).
    private static let placeholder = TransportError(.notSent, "")

    /// The result of `requests[index]`. `result` is taken (`consuming`), not
    /// copied, all the way from the stream into the results.
    func complete(_ index: Int, _ result: consuming Result<HTTP2Response, TransportError>) {
        // Taken out and put back: no access to `state` spans a call, so none
        // is checked for exclusivity at run time.
        var current = State(results: [], filled: [], remaining: 0)
        swap(&current, &state)
        let results = current.add(index - offset, result)
        swap(&current, &state)
        if let results { deliver(consume results) }
    }
}
