/// The storage of `InMemoryDedupStore`: recorded events packed one after the
/// other into large byte chunks, in the order they were recorded, plus an
/// index from each key's hash to its newest record.
///
/// The window is swept from the oldest record on, so the log is only ever
/// appended at its end and cut at its start: no allocation per event and no
/// holes between long-lived entries (one `[UInt8]` or `String` per event
/// left ~0.2 KB of malloc overhead and fragmentation around each).
///
/// A record is the key's hash (8 bytes), the packed length (4 bytes) and the
/// packed event. A record is live while the index points at it; recording a
/// key again (or another key with the same hash) leaves the older record dead,
/// to be skipped by the sweep. Dead records count against the capacity like
/// live ones until swept, so a key recorded again and again (retries) cannot
/// grow the log past it.
struct DedupLog {
    private struct Location {
        var chunk: Int
        var offset: Int
        var expires: ContinuousClock.Instant
    }

    private static let headerSize = 12
    private let chunkSize: Int
    /// Oldest first; the last one is being appended to.
    private var chunks: [[UInt8]] = []
    /// The absolute number of `chunks[0]` (chunks dropped so far).
    private var firstChunk = 0
    /// Where in `chunks[0]` the oldest record not yet swept starts.
    private var sweepOffset = 0
    private var index: [UInt64: Location] = [:]
    /// Records in the log, live or dead, not yet swept.
    private(set) var records = 0
    /// Their bytes (headers included): what the byte budget bounds.
    private(set) var bytes = 0

    init(chunkSize: Int = 64 * 1024) {
        self.chunkSize = chunkSize
    }

    /// Live records.
    var count: Int { index.count }

    /// The packed event recorded under `hash`, if it has not expired.
    func lookup(_ hash: UInt64, now: ContinuousClock.Instant) -> ArraySlice<UInt8>? {
        guard let location = index[hash], location.expires > now else { return nil }
        let chunk = chunks[location.chunk - firstChunk]
        var reader = PackedRecordedEvent.Reader(bytes: chunk[(location.offset + 8)...])
        let length = Int(reader.uint32())
        let start = location.offset + Self.headerSize
        return chunk[start..<start + length]
    }

    /// Appends a record for `hash` and makes it the live one.
    mutating func append(_ hash: UInt64, packed: [UInt8], expires: ContinuousClock.Instant) {
        append(hash, count: packed.count, expires: expires) { $0.append(contentsOf: packed) }
    }

    /// `append(hash, packed:expires:)` of `event` packed under `key`, packed
    /// straight into the log (no array of its own to build, copy and free).
    mutating func append(_ hash: UInt64, key: String, event: RecordedEvent, expires: ContinuousClock.Instant) {
        append(hash, count: PackedRecordedEvent.size(key: key, event: event), expires: expires) {
            PackedRecordedEvent.append(key: key, event: event, to: &$0)
        }
    }

    /// Appends a record of `count` packed bytes, which `write` appends to the chunk.
    private mutating func append(_ hash: UInt64, count: Int, expires: ContinuousClock.Instant, write: (inout [UInt8]) -> Void) {
        let size = Self.headerSize + count
        if chunks.isEmpty || chunks[chunks.count - 1].count + size > chunks[chunks.count - 1].capacity {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(chunkSize, size))
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        let offset = chunks[last].count
        PackedRecordedEvent.append(hash, to: &chunks[last])
        PackedRecordedEvent.append(UInt32(count), to: &chunks[last])
        write(&chunks[last])
        // `count` only chose the chunk; the header holds what was written
        // (a wrong estimate costs a chunk's reallocation, never a bad record).
        let written = chunks[last].count - offset - Self.headerSize
        if written != count {
            for (position, shift) in zip(offset + 8..<offset + Self.headerSize, stride(from: 0, to: 32, by: 8)) {
                chunks[last][position] = UInt8(truncatingIfNeeded: UInt32(written) >> shift)
            }
        }
        index[hash] = Location(chunk: firstChunk + last, offset: offset, expires: expires)
        records += 1
        bytes += Self.headerSize + written
    }

    /// Forgets records from the oldest on: dead and expired ones, and live
    /// ones while the log holds more than `capacity` records or more than
    /// `byteCapacity` bytes of them (a 500-device event packs to ~33 KB:
    /// a count alone would let those take gigabytes). Stops at the first
    /// live record that may stay.
    mutating func sweep(now: ContinuousClock.Instant, capacity: Int, byteCapacity: Int = .max) {
        while !chunks.isEmpty {
            if sweepOffset == chunks[0].count {
                guard chunks.count > 1 else {
                    // Everything written has been swept: start the chunk over.
                    chunks[0].removeAll(keepingCapacity: true)
                    sweepOffset = 0
                    return
                }
                chunks.removeFirst()
                firstChunk += 1
                sweepOffset = 0
                continue
            }
            var reader = PackedRecordedEvent.Reader(bytes: chunks[0][sweepOffset...])
            let hash = reader.uint64()
            let length = Int(reader.uint32())
            if let live = index[hash], live.chunk == firstChunk, live.offset == sweepOffset {
                guard live.expires <= now || records > capacity || bytes > byteCapacity else { return }
                index[hash] = nil
            }
            sweepOffset += Self.headerSize + length
            records -= 1
            bytes -= Self.headerSize + length
        }
    }
}
