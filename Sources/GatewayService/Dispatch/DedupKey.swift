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
