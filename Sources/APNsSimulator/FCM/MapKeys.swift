/// The distinct keys of one JSON object read as a proto `map<string, string>`
/// by `FCMSendScanner`, in the order first written: a key written again
/// keeps its position and takes the later value. Keys are equal as
/// Strings are (canonical equivalence): ASCII keys by a hash of their
/// bytes, confirmed on the text; any other key by its String.
struct MapKeys {
    /// A key as read.
    struct Key {
        var isASCII = true
        /// FNV-1a of the decoded bytes.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        /// The decoded length in UTF-8 bytes.
        var count: Int
        /// FCM reserves it (set by the reader of a data map).
        var isReserved = false

        init(_ text: UnsafeBufferPointer<UInt8>) {
            count = text.count
            for byte in text {
                if byte >= 0x80 { isASCII = false }
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
    }

    /// A distinct key: where it was first written (quotes included), and
    /// the lengths FCM counts.
    struct Entry {
        var keyStart: Int
        var keyEnd: Int
        var hash: UInt64
        var isASCII: Bool
        var keyCount: Int
        var valueCount: Int
    }

    /// How many entries the reader's room on its stack holds: 16 entries
    /// are 768 bytes, within the 1 KiB `withUnsafeTemporaryAllocation`
    /// always takes from the stack (a larger room is checked against the
    /// thread's stack at run time and may come from the heap).
    static let roomCapacity = 16

    /// The first entries, in room the reader lends (on its stack), then the rest.
    private let room: UnsafeMutableBufferPointer<Entry>
    private var overflow: [Entry] = []
    private(set) var count = 0
    /// The keys' and the last values' UTF-8 bytes.
    private(set) var bytes = 0

    /// Keys kept first in `room` (uninitialized memory the caller owns and
    /// keeps for as long as this value is used).
    init(room: UnsafeMutableBufferPointer<Entry>) { self.room = room }

    subscript(position: Int) -> Entry {
        get { position < room.count ? room[position] : overflow[position - room.count] }
        set {
            if position < room.count { room[position] = newValue } else { overflow[position - room.count] = newValue }
        }
    }

    /// The entry of a key equal to `key`, written at `written` in `text`.
    func find(_ key: Key, written: Range<Int>, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var decoded: String?
        for position in 0..<count {
            let entry = self[position]
            if key.isASCII, entry.isASCII {
                guard entry.hash == key.hash, entry.keyCount == key.count else { continue }
                if TextBytes.equal(UnsafeBufferPointer(rebasing: text[entry.keyStart..<entry.keyEnd]),
                                   UnsafeBufferPointer(rebasing: text[written])) { return position }
            }
            if decoded == nil { decoded = Self.decode(text, written) }
            if Self.decode(text, entry.keyStart..<entry.keyEnd) == decoded { return position }
        }
        return nil
    }

    /// Records the value of `key` (a new key when `entry` is `nil`).
    mutating func set(_ entry: Int?, key: Key, written: Range<Int>, valueCount: Int) {
        if let entry {
            bytes += valueCount - self[entry].valueCount
            self[entry].valueCount = valueCount
            return
        }
        let new = Entry(keyStart: written.lowerBound, keyEnd: written.upperBound, hash: key.hash, isASCII: key.isASCII,
                        keyCount: key.count, valueCount: valueCount)
        if count < room.count { room.initializeElement(at: count, to: new) } else { overflow.append(new) }
        count += 1
        bytes += key.count + valueCount
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        SimulatorJSONParser.parseOrdered(Array(text[range]))?.stringValue
    }
}
