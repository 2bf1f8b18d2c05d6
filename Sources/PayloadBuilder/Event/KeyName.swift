/// A key of at most 16 bytes held in two words, so that finding it among
/// the event's member names is a few integer comparisons.
struct KeyName: Equatable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private var count: Int

    /// The key `bytes`, or nil when longer than 16 bytes (no member name is).
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= 16 else { return nil }
        count = bytes.count
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 {
                low |= UInt64(byte) << (offset * 8)
            } else {
                high |= UInt64(byte) << ((offset - 8) * 8)
            }
        }
    }

    /// The names, in order (each at most 16 bytes).
    static func table(_ names: [StaticString]) -> [KeyName] {
        names.map { name in name.withUTF8Buffer { KeyName($0)! } }
    }
}
