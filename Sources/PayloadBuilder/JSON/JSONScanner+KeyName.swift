extension JSONScanner {
    /// A key of at most 16 bytes held in two words, so that finding it among
    /// a reader's member names is a few integer comparisons (`case "token":`).
    struct KeyName: Equatable, ExpressibleByStringLiteral {
        // The length first: most names differ in it, and `==` compares in this order.
        private var count: Int
        private var low: UInt64
        private var high: UInt64

        /// The key `bytes` (a key `nextKey` read as a string); a key longer
        /// than 16 bytes keeps only its length, which no member name has.
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            count = bytes.count
            (low, high) = bytes.count <= 16 ? KeyName.words(bytes) : (0, 0)
        }

        /// The key of `count` bytes (at most 15) that are the first bytes of
        /// `low` and `high` (read little-endian from the input); the rest is dropped.
        @inline(__always)
        init(low: UInt64, high: UInt64, count: Int) {
            self.count = count
            self.low = count >= 8 ? low : low & ((1 << (UInt64(count) * 8)) - 1)
            self.high = count <= 8 ? 0 : high & ((1 << (UInt64(count - 8) * 8)) - 1)
        }

        /// At most 16 bytes as two words, byte by byte.
        private static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
            var words: (low: UInt64, high: UInt64) = (0, 0)
            for (offset, byte) in bytes.enumerated() {
                if offset < 8 {
                    words.low |= UInt64(byte) << (offset * 8)
                } else {
                    words.high |= UInt64(byte) << ((offset - 8) * 8)
                }
            }
            return words
        }

        /// A member name of at most 16 bytes, written as a literal (`case
        /// "token":`). Inlined, the copy of the literal's bytes folds into two
        /// constants at compile time.
        @inline(__always)
        init(stringLiteral name: StaticString) {
            let length = name.utf8CodeUnitCount
            precondition(length <= 16, "a member name is at most 16 bytes")
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(start: name.utf8Start, count: length))
            }
            count = length
            // The bytes in memory order, first in the lowest bits, as `nextKey` reads them.
            low = UInt64(littleEndian: words.0)
            high = UInt64(littleEndian: words.1)
        }
    }
}
