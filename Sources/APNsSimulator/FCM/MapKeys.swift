/// The distinct keys of one JSON object read as a proto `map<string, string>`
/// by `FCMSendScanner`, in the order first written: a key written again
/// keeps its position and takes the later value. Keys are equal as
/// Strings are (canonical equivalence): two ASCII keys written without
/// escapes by their written bytes; any other pair by their Strings.
struct MapKeys {
    /// A key as read.
    struct Key {
        var isASCII: Bool
        /// The decoded length in UTF-8 bytes.
        var count: Int
        /// FCM reserves it (set by the reader of a data map).
        var isReserved = false

        init(_ text: UnsafeBufferPointer<UInt8>) {
            count = text.count
            isASCII = TextBytes.isASCII(text)
        }
    }

    /// A distinct key: where it was first written (quotes included), and
    /// the lengths FCM counts.
    struct Entry {
        var keyStart: Int
        var keyEnd: Int
        var isASCII: Bool
        var keyCount: Int
        var valueCount: Int
    }

    /// How many entries the reader's room on its stack holds: 16 entries
    /// stay within the 1 KiB `withUnsafeTemporaryAllocation` always takes
    /// from the stack (a larger room is checked against the thread's stack
    /// at run time and may come from the heap).
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
    /// An ASCII key written without escapes is its written text between
    /// the quotes (an escape is longer than the byte it stands for).
    func find(_ key: Key, written: Range<Int>, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var decoded: String?
        let keyIsPlain = written.count == key.count + 2
        for position in 0..<count {
            let entry = self[position]
            if key.isASCII, entry.isASCII {
                guard entry.keyCount == key.count else { continue }
                if TextBytes.equal(UnsafeBufferPointer(rebasing: text[entry.keyStart..<entry.keyEnd]),
                                   UnsafeBufferPointer(rebasing: text[written])) { return position }
                if keyIsPlain, entry.keyEnd - entry.keyStart == entry.keyCount + 2 { continue }
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
        let new = Entry(keyStart: written.lowerBound, keyEnd: written.upperBound, isASCII: key.isASCII,
                        keyCount: key.count, valueCount: valueCount)
        if count < room.count { room.initializeElement(at: count, to: new) } else { overflow.append(new) }
        count += 1
        bytes += key.count + valueCount
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        SimulatorJSONParser.parseOrdered(Array(text[range]))?.stringValue
    }
}
