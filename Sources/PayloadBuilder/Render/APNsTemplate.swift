/// The direct APNs payload of one event and content, with a hole for the
/// badge (API.md "Direct APNs"): `aps` with the alert and the Communication
/// Notification flags, the notifee block, then the data keys at top level.
struct APNsTemplate {
    /// Where the payload without the badge is in the plan's store: the part
    /// before the badge's place, then the rest.
    private let head: Range<Int>
    private let rest: Range<Int>

    /// Payload size with room for any badge; must stay within 4096 bytes.
    var countedBytes: Int { head.count + rest.count + RenderPlan.badgeReserve }

    /// Writes the template at the end of `out`, the plan's store (where the fragments are).
    init(plan: RenderPlan, content: String, dataText: String, into out: inout ByteWriter) {
        let fragments = plan.fragments
        let start = out.count
        out.appendLiteral("{\"aps\":{\"alert\":{\"title\":")
        out.appendCopy(of: fragments.title)
        out.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &out)
        out.append(UInt8(ascii: "}"))
        // `[,"sound":…],"thread-id":…,"category":…,"content-available":1,"mutable-content":1`
        out.appendCopy(of: fragments.apnsAfterAlert)
        head = start..<out.count

        out.appendLiteral("},")
        out.appendCopy(of: fragments.notifee)
        if fragments.hasData {
            out.append(UInt8(ascii: ","))
            fragments.appendData(dataText: dataText, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        rest = head.upperBound..<out.count
    }

    /// The size of a payload, with room for any badge.
    var expectedPayloadCount: Int { countedBytes }

    /// Appends the payload for one device to `out` (another buffer than
    /// the plan's `store`), the badge in its hole.
    func write(badge: Int?, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.append(head, of: store)
        if let badge {
            out.appendLiteral(",\"badge\":")
            out.appendDecimal(Int64(badge))
        }
        out.append(rest, of: store)
    }
}
