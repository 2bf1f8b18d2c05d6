/// The requests of a group sent together, their results, and what to call
/// when the last of them is done: one wake-up of the caller per batch instead
/// of one per request, which is what lets a 500-recipient event go out at the
/// connection's speed. Each stream reads its request here, in place: no
/// copy of a request (and of its strings and arrays) per stream.
///
/// `@unchecked Sendable`: before the batch is handed to a connection's loop
/// thread only the sending thread touches it; afterwards only the loop thread
/// does. `deliver` is called exactly once, when `remaining` hits 0; `requests`
/// never changes.
final class BatchCompletion: @unchecked Sendable {
    typealias Results = [Result<HTTP2Response, TransportError>]
    let requests: [HTTP2Request]
    /// Filled in place (no optional per result to unwrap into a second array
    /// at the end); `filled` says which positions hold their real result.
    private var results: Results
    private var filled: [Bool]
    private var remaining: Int
    private let deliver: @Sendable (Results) -> Void

    init(requests: [HTTP2Request], deliver: @escaping @Sendable (Results) -> Void) {
        self.requests = requests
        let count = requests.count
        // A batch of one (the usual notify: one device per provider) needs no
        // array to gather into: `remaining` says whether it has finished.
        results = count == 1 ? [] : Array(repeating: .failure(Self.placeholder), count: count)
        filled = count == 1 ? [] : Array(repeating: false, count: count)
        remaining = count
        self.deliver = deliver
        if count == 0 { deliver([]) }
    }

    /// What a position holds until its result arrives (never delivered).
    private static let placeholder = TransportError(.notSent, "")

    func complete(_ index: Int, _ result: Result<HTTP2Response, TransportError>) {
        guard remaining > 0 else { return }
        if filled.isEmpty {
            remaining = 0
            return deliver([result])
        }
        guard !filled[index] else { return }
        filled[index] = true
        results[index] = result
        remaining -= 1
        if remaining == 0 {
            // Handed over, not kept: the receiver owns the only reference.
            var delivered: Results = []
            swap(&delivered, &results)
            deliver(delivered)
        }
    }
}
