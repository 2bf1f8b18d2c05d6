/// Derives the `apns-id` of one notification from its event id and device
/// token: 32 lowercase hex digits as 8-4-4-4-12, shaped like a version-4 UUID.
///
/// Deriving rather than drawing it makes a re-sent notification carry the
/// same id (logs and Apple's console line up) and keeps rendering pure. The
/// first half comes from SHA-256 of the event id (once per event), the second
/// from a 64-bit FNV-1a of the token in lowercase (per device): distinct per
/// event and per device, and cheap enough for the per-device path. Not a
/// secret, not a MAC.
public struct APNsID: Sendable {
    private let eventHalf: UInt64

    /// Prepares the per-event half.
    public init(eventID: String) {
        // The first 8 digest bytes, big-endian: the first two state words.
        let state = SHA256.hash(eventID.utf8)
        eventHalf = UInt64(state.0) << 32 | UInt64(state.1)
    }

    /// The id for one device of the event.
    public func id(token: String) -> String {
        var digits = InlineArray<36, UInt8>(repeating: 0)
        var span = digits.mutableSpan
        var bytes = span.mutableBytes
        write(token: token, into: &bytes)
        do {
            return String(copying: try UTF8Span(validating: digits.span))
        } catch {
            preconditionFailure("an apns-id is hex digits and dashes: \(error)")
        }
    }

    /// The id's length in bytes (ASCII).
    static let length = 36

    /// Appends the id for one device of the event (`id(token:)`'s bytes).
    func append(token: String, to out: inout ByteWriter) {
        out.appendWritten(count: Self.length) { write(token: token, into: &$0) }
    }

    /// Writes the id's 36 bytes into `out` (36 bytes long).
    @inline(__always)
    private func write(token: String, into out: inout MutableRawSpan) {
        var fnv = FNV1a64()
        // Hashed in lowercase, as the dedup window compares APNs tokens: a
        // re-send that spells the token in capitals keeps its id. The token
        // is hex, so setting bit 0x20 lowers A-F and leaves 0-9 as they are.
        let bytes = token.utf8.span
        for index in bytes.indices { fnv.mix(bytes[index] | 0x20) }
        let (high, low) = halves(tokenHash: fnv.value)
        // Eight digits at a time (`Self.hexDigits(of:)`), placed with
        // unaligned stores: 8-4-4 digits of the event half, then 4-12 of the
        // device half.
        let high0 = Self.hexDigits(of: UInt32(truncatingIfNeeded: high >> 32))
        let high1 = Self.hexDigits(of: UInt32(truncatingIfNeeded: high))
        let low0 = Self.hexDigits(of: UInt32(truncatingIfNeeded: low >> 32))
        let low1 = Self.hexDigits(of: UInt32(truncatingIfNeeded: low))
        // Stored big-endian: the most significant digit first in memory.
        out.storeBytes(of: high0.bigEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: high1 >> 32).bigEndian, toByteOffset: 9, as: UInt32.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: high1).bigEndian, toByteOffset: 14, as: UInt32.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: low0 >> 32).bigEndian, toByteOffset: 19, as: UInt32.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: low0).bigEndian, toByteOffset: 24, as: UInt32.self)
        out.storeBytes(of: low1.bigEndian, toByteOffset: 28, as: UInt64.self)
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 8, as: UInt8.self)
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 13, as: UInt8.self)
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 18, as: UInt8.self)
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 23, as: UInt8.self)
    }

    /// The UUID's two 64-bit halves before formatting: version 4 in the high
    /// nibble of byte 6, variant 10 in byte 8.
    func halves(tokenHash: UInt64) -> (high: UInt64, low: UInt64) {
        (eventHalf & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000,
         tokenHash & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    /// The eight lowercase hex digits of `value` in one word, read as a
    /// big-endian number: the most significant digit in the highest byte.
    ///
    /// Each nibble is spread into a byte of its own (halves, then quarters,
    /// then nibbles moved apart), then turned into its digit without a
    /// table: `'0' + n`, plus 39 more (`'a' - '0' - 10`) where `n + 6`
    /// carries into bit 4, that is where `n >= 10`. No byte carries into
    /// the next: every step stays below 0x80.
    @inline(__always)
    static func hexDigits(of value: UInt32) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        spread = (spread | spread << 4) & 0x0F0F_0F0F_0F0F_0F0F
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return spread &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }

    /// The id for one notification (event and device) in one call.
    public static func derive(eventID: String, token: String) -> String {
        APNsID(eventID: eventID).id(token: token)
    }
}
