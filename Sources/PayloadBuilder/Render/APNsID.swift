/// Derives the `apns-id` of one notification from its event id and device
/// token: 32 lowercase hex digits as 8-4-4-4-12, shaped like a version-4 UUID.
///
/// Deriving rather than drawing it makes a re-sent notification carry the
/// same id (logs and Apple's console line up) and keeps rendering pure. The
/// first half comes from SHA-256 of the event id (once per event), the second
/// from a 64-bit FNV-1a of the token (per device): distinct per event and per
/// device, and cheap enough for the per-device path. Not a secret, not a MAC.
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
        var token = token
        var fnv = FNV1a64()
        token.withUTF8 { fnv.add(raw: $0) }
        let hash = fnv.value
        // Version 4 in the high nibble of byte 6, variant 10 in byte 8.
        let high = eventHalf & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = hash & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            Self.hexDigits.withUTF8Buffer { hex in
                var position = 0
                // `count` hex digits of `word` from nibble `first` (most significant first).
                func put(_ word: UInt64, from first: Int, _ count: Int) {
                    var shift = UInt64(60 - first * 4)
                    for _ in 0..<count {
                        buffer[position] = hex[Int(truncatingIfNeeded: word >> shift & 0xF)]
                        position += 1
                        shift &-= 4
                    }
                }
                func dash() {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                // 8-4-4 digits of the event half, then 4-12 of the device half.
                put(high, from: 0, 8)
                dash()
                put(high, from: 8, 4)
                dash()
                put(high, from: 12, 4)
                dash()
                put(low, from: 0, 4)
                dash()
                put(low, from: 4, 12)
                return position
            }
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// The id for one notification (event and device) in one call.
    public static func derive(eventID: String, token: String) -> String {
        APNsID(eventID: eventID).id(token: token)
    }
}
