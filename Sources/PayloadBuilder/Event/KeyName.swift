/// A key of at most 16 bytes held in two words, so that finding it among
/// the event's member names is a few integer comparisons.
struct KeyName: Equatable {
    private var low: UInt64
    private var high: UInt64
    private var count: Int

    /// The key `bytes`, a part of `input`; nil when longer than 16 bytes (no
    /// member name is). Read as two words when 16 bytes of `input` follow
    /// its start (a key is followed by at least `":` and a value), else byte
    /// by byte.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, in input: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= 16, let start = bytes.baseAddress, let base = input.baseAddress else { return nil }
        count = bytes.count
        guard base + input.count - start >= 16 else {
            (low, high) = KeyName.words(bytes)
            return
        }
        let raw = UnsafeRawPointer(start)
        let first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let second = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        low = count >= 8 ? first : first & ((1 << (UInt64(count) * 8)) - 1)
        high = count >= 16 ? second : count <= 8 ? 0 : second & ((1 << (UInt64(count - 8) * 8)) - 1)
    }

    /// A name of at most 16 bytes.
    private init(name bytes: UnsafeBufferPointer<UInt8>) {
        count = bytes.count
        (low, high) = KeyName.words(bytes)
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

    /// The names, in order (each at most 16 bytes).
    static func table(_ names: [StaticString]) -> [KeyName] {
        names.map { name in name.withUTF8Buffer { KeyName(name: $0) } }
    }
}
