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

    /// `"\(app)\u{0}\(eventID)\u{0}\(String(hash, radix: 16))"`: the bytes
    /// written once into an array of their exact size, then made a string
    /// (interpolation grew the string piece by piece, and the hex digits
    /// were a string of their own).
    static func joined(app: String, eventID: String, hash: UInt64) -> String {
        let digits = hash == 0 ? 1 : (67 - hash.leadingZeroBitCount) / 4
        let bytes = [UInt8](capacity: app.utf8.count + eventID.utf8.count + 2 + digits) { out in
            let app = app.utf8.span, eventID = eventID.utf8.span
            for index in app.indices { out.append(app[index]) }
            out.append(0)
            for index in eventID.indices { out.append(eventID[index]) }
            out.append(0)
            for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
                let digit = UInt8(truncatingIfNeeded: hash >> UInt64(shift) & 0xf)
                out.append(digit < 10 ? 48 + digit : 87 + digit)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
