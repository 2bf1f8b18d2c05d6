/// 64-bit FNV-1a: a fast, stable, non-cryptographic hash for ids and keys
/// that must agree across processes and releases (an `apns-id`'s device
/// half, the dedup key's message fingerprint). Not a MAC: whoever controls
/// the input can make collisions.
@frozen
public struct FNV1a64: Sendable {
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of everything added so far.
    @inlinable public var value: UInt64 { state }

    @inlinable
    public init() {}

    /// Hashes the bytes as they are (no length): `"ab","c"` and `"a","bc"`
    /// hash alike, so use it for one field, or use `add(_:)`.
    @inlinable
    public mutating func add(raw bytes: Span<UInt8>) {
        for index in bytes.indices { mix(bytes[index]) }
    }

    /// Hashes the string's length (8 bytes, little-endian), then its UTF-8:
    /// a sequence of fields then hashes apart from any other split of the
    /// same bytes.
    @inlinable
    public mutating func add(_ text: String) {
        var count = UInt64(text.utf8.count)
        for _ in 0..<8 {
            mix(UInt8(truncatingIfNeeded: count))
            count >>= 8
        }
        for byte in text.utf8 { mix(byte) }
    }

    @inlinable @inline(__always)
    internal mutating func mix(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
}
