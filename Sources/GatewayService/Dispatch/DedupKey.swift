import PayloadBuilder

/// The key an event is deduplicated under: its app, its `event_id`, and a
/// fingerprint of the message it carries.
///
/// The `event_id` alone is not enough. The default one,
/// `conversation.id + ":" + message.id`, is ambiguous when the ids hold a
/// colon (`"room:1" + ":" + "7"` and `"room" + ":" + "1:7"`), and a caller
/// may reuse an explicit one by mistake: either way a *different* message
/// would be answered `duplicate` from the first one's record and never
/// sent. A retry carries the same message, so it still finds its record.
///
/// The message is what identifies it, not how it is shown: conversation id,
/// message id, text, kind, rich-text flag and sender id. Titles, names,
/// avatar, extra data and the recipients may change between a caller's
/// retries (a group split into batches keeps its `event_id`) without
/// making it another message.
enum DedupKey {
    static func of(_ event: Event, app: String) -> String {
        var hash = FNV1a64()
        hash.add(event.conversation.id)
        hash.add(event.message.id)
        hash.add(event.message.text)
        hash.add(event.message.kind.rawValue)
        hash.add(event.message.richText ? "1" : "0")
        hash.add(event.sender.id)
        return joined(app: app, eventID: event.eventID, hash: hash.value)
    }

    /// `"\(app)\u{0}\(eventID)\u{0}\(String(hash, radix: 16))"`, written
    /// in one allocation (interpolation and the hex string took three).
    static func joined(app: String, eventID: String, hash: UInt64) -> String {
        var app = app
        var eventID = eventID
        let digits = hash == 0 ? 1 : (67 - hash.leadingZeroBitCount) / 4
        let count = app.utf8.count + eventID.utf8.count + 2 + digits
        return app.withUTF8 { app in
            eventID.withUTF8 { eventID in
                String(unsafeUninitializedCapacity: count) { buffer in
                    var offset = 0
                    for byte in app { buffer[offset] = byte; offset += 1 }
                    buffer[offset] = 0
                    offset += 1
                    for byte in eventID { buffer[offset] = byte; offset += 1 }
                    buffer[offset] = 0
                    offset += 1
                    var rest = hash
                    for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                        let digit = UInt8(truncatingIfNeeded: rest & 0xf)
                        buffer[position] = digit < 10 ? 48 + digit : 87 + digit
                        rest >>= 4
                    }
                    return offset + digits
                }
            }
        }
    }
}

/// 64-bit FNV-1a over length-prefixed strings (the prefix keeps `"ab","c"`
/// and `"a","bc"` apart). Stable across processes, so a shared dedup store
/// would agree with this one. Not a MAC: a caller can only collide its own
/// events.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        var count = UInt64(text.utf8.count)
        for _ in 0..<8 {
            mix(UInt8(truncatingIfNeeded: count))
            count >>= 8
        }
        for byte in text.utf8 { mix(byte) }
    }

    private mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
}
