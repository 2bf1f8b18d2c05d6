/// The streams a connection has open, in a table of slots: each stream
/// knows its slot (`PendingStream.slot`), and the connection finds a stream
/// by its id through nghttp2's stream user data, so adding and removing one
/// hashes nothing. Freed slots are reused; the table never holds more slots
/// than the most streams open at once.
///
/// Loop-thread state of one connection, like the streams it holds.
struct InFlightStreams {
    private var slots: [PendingStream?] = []
    private var freeSlots: [Int] = []
    private(set) var count = 0
    /// Body bytes of the open streams that nghttp2 has not sent yet.
    private(set) var unsentBodyBytes = 0

    var isEmpty: Bool { count == 0 }

    /// Takes `stream` in; `consuming`: the caller's reference moves into the
    /// table (no retain and release to copy it).
    mutating func insert(_ stream: consuming PendingStream) {
        unsentBodyBytes += stream.unsentBodyCount
        if let slot = freeSlots.popLast() {
            stream.slot = slot
            slots[slot] = consume stream
        } else {
            stream.slot = slots.count
            slots.append(consume stream)
        }
        count += 1
    }

    /// A DATA frame of `byteCount` bytes of `stream`'s body was sent.
    mutating func bodySent(_ byteCount: Int, by stream: PendingStream) {
        stream.bodyBytesSent += byteCount
        unsentBodyBytes -= byteCount
    }

    /// Takes `stream` out and hands back the table's reference to it
    /// (moved out, not retained again); nil when it is not in the table.
    mutating func remove(_ stream: PendingStream) -> PendingStream? {
        let slot = stream.slot
        guard slot >= 0, slot < slots.count, slots[slot] === stream else { return nil }
        let removed = slots[slot].take()
        stream.slot = -1
        freeSlots.append(slot)
        count -= 1
        unsentBodyBytes -= stream.unsentBodyCount
        return removed
    }

    /// Calls `body` with each open stream, in no particular order; `body`
    /// must not add or remove streams.
    func forEach(_ body: (PendingStream) -> Void) {
        for case let stream? in slots { body(stream) }
    }

    mutating func removeAll() {
        forEach { $0.slot = -1 }
        slots.removeAll()
        freeSlots.removeAll()
        count = 0
        unsentBodyBytes = 0
    }
}
