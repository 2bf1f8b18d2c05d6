/// Reads a run of bytes eight or sixteen at a time through a `Span`: each
/// read checks its bounds once, as a range of the span, and the byte loop
/// inside it compiles to one unaligned load (the compiler knows the range
/// holds exactly that many bytes). What the byte rules of an event use
/// instead of raw pointers.
extension Span where Element == UInt8 {
    /// The eight bytes from `offset`, the first in the lowest bits.
    @inline(__always)
    func littleEndianWord(at offset: Int) -> UInt64 {
        let bytes = extracting(offset..<offset &+ 8)
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[index]) << (index &* 8) }
        return word
    }

    /// The four bytes from `offset`, the first in the lowest bits.
    @inline(__always)
    func littleEndianHalfWord(at offset: Int) -> UInt32 {
        let bytes = extracting(offset..<offset &+ 4)
        var word: UInt32 = 0
        for index in 0..<4 { word |= UInt32(bytes[index]) << (index &* 8) }
        return word
    }

    /// The sixteen bytes from `offset` as vector lanes, the first in lane 0.
    @inline(__always)
    func lanes(at offset: Int) -> SIMD16<UInt8> {
        let bytes = extracting(offset..<offset &+ 16)
        var lanes = SIMD16<UInt8>()
        for index in 0..<16 { lanes[index] = bytes[index] }
        return lanes
    }
}
