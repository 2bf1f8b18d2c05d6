/// The plaintext of a direct web push message (`webpush` recipients) for
/// one event and content: the JSON a service worker's `push` handler reads
/// (`event.data.json()`) before the transport encrypts it (RFC 8291):
///
/// `{"title":…,"body":…,"tag":…[,"icon":…],"data":{…}}`
///
/// `title`, `body`, `tag` (the conversation id) and `icon` (the avatar,
/// only when it resolved) are the Notification API's options, ready for
/// `showNotification(title, options)`; `data` holds the data keys of the
/// Android message, nested so that no data key (the caller's own or a
/// renamed standard one) can clash with them. The same for every browser
/// of the event: there is no hole.
struct WebPushPlaintextTemplate {
    /// Where the plaintext is in the plan's store.
    let bytes: Range<Int>

    /// The largest plaintext: 4096 bytes, the payload every push service
    /// must take (RFC 8030 §7.2), less `aes128gcm`'s overhead for one
    /// record (RFC 8188, 8291 §4): its header (16-byte salt, 4-byte record
    /// size, key id length, 65-byte key id), the padding delimiter and the
    /// 16-byte tag, 103 bytes in all.
    static let limit = 4096 - (16 + 4 + 1 + 65) - 1 - 16

    var countedBytes: Int { bytes.count }

    /// Writes the template at the end of `out`, the plan's store (where the fragments are).
    init(plan: RenderPlan, content: String, dataText: String, into out: inout ByteWriter) {
        let fragments = plan.fragments
        let start = out.count
        out.appendLiteral("{\"title\":")
        out.appendCopy(of: fragments.title)
        out.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &out)
        out.appendLiteral(",\"tag\":")
        out.appendCopy(of: fragments.escaped.conversationID)
        if let avatarURL = fragments.escaped.avatarURL {
            out.appendLiteral(",\"icon\":")
            out.appendCopy(of: avatarURL)
        }
        out.appendLiteral(",\"data\":{")
        fragments.appendData(dataText: dataText, to: &out)
        out.appendLiteral("}}")
        bytes = start..<out.count
    }
}
