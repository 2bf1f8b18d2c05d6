/// The requests of one connection waiting for a stream slot, in the order
/// they were queued: taken over from the connection's inbox, handed out
/// one at a time as streams open, and given back as the streams to fail
/// when they time out or the connection stops. A value that says which
/// streams to fail, not one that fails them: the connection delivers the
/// results.
///
/// Handed-out entries are moved out (nil) and the list is compacted now
/// and then (`compact`), so that taking the first costs no shifting; the
/// inbox's list and this one trade storage (`take(from:)`), so that a busy
/// connection allocates no list per turn.
///
/// Loop-thread state of one connection.
struct StreamQueue {
    private var list: [PendingStream?] = []
    /// Where the waiting streams begin in `list`.
    private var head = 0
    /// The inbox's list as last taken, emptied, to be traded back.
    private var spare: [PendingStream?] = []

    init() {}

    /// No stream waits.
    var isEmpty: Bool { head == list.count }
    /// Streams waiting.
    var count: Int { list.count - head }

    /// Trades lists with the inbox (`queued`, left empty): a swap, short
    /// enough to do under the inbox's lock. `admitTaken` then queues them.
    mutating func take(from queued: inout [PendingStream?]) {
        swap(&queued, &spare)
    }

    /// Queues the streams `take(from:)` took: when none waits here, their
    /// list becomes the queue (no retain and release of each stream).
    /// Returns whether there were any.
    mutating func admitTaken() -> Bool {
        guard !spare.isEmpty else { return false }
        if list.isEmpty {
            swap(&list, &spare)
        } else {
            list.append(contentsOf: spare)
            spare.removeAll(keepingCapacity: true)
        }
        return true
    }

    /// Adds streams at the end (the inbox's, as the connection ends).
    mutating func append(contentsOf streams: [PendingStream?]) {
        list.append(contentsOf: streams)
    }

    /// The body size of the first waiting stream; nil when none waits.
    var firstBodyCount: Int? {
        head < list.count ? list[head]!.unsentBodyCount : nil
    }

    /// Takes out the first waiting stream: moved out, not copied, so that a
    /// stream that closes while the list still holds others is held by
    /// nothing else (and may be reused).
    mutating func removeFirst() -> PendingStream? {
        guard head < list.count else { return nil }
        defer { head += 1 }
        return list[head].take()
    }

    /// Lets go of the entries already taken: at once when all were taken,
    /// which under load is most turns, else once they are the larger part
    /// of the list.
    mutating func compact() {
        if head == list.count {
            list.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > list.count {
            list.removeFirst(head)
            head = 0
        }
    }

    /// Takes out every waiting stream, for the caller to fail.
    mutating func removeAll() -> [PendingStream] {
        let streams = list[head...].map { $0! }
        list.removeAll()
        head = 0
        return streams
    }

    /// Takes out every waiting stream whose deadline is `sinceOrigin` or
    /// earlier (as `PendingStream.deadlineSinceOrigin`), wherever it is in
    /// the queue: a pool's resends keep their first attempt's start, so an
    /// earlier deadline may wait behind a later one. The others keep their
    /// order; one already finished is dropped.
    mutating func removeExpired(sinceOrigin: Duration) -> [PendingStream] {
        guard list[head...].contains(where: { !$0!.finished && $0!.deadlineSinceOrigin <= sinceOrigin }) else { return [] }
        var expired: [PendingStream] = []
        var kept: [PendingStream?] = []
        kept.reserveCapacity(list.count - head)
        for index in head..<list.count {
            let stream = list[index].take()!
            if stream.finished { continue }
            if stream.deadlineSinceOrigin <= sinceOrigin { expired.append(stream) } else { kept.append(stream) }
        }
        list = kept
        head = 0
        return expired
    }
}
