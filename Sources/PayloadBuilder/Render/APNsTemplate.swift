/// The direct APNs payload of one event and content, with a hole for the
/// badge (API.md "Direct APNs"): `aps` with the alert and the Communication
/// Notification flags, the notifee block, then the data keys at top level.
struct APNsTemplate {
    private var head: [UInt8] = []
    private var tail: [UInt8] = []

    /// Payload size with room for any badge; must stay within 4096 bytes.
    var countedBytes: Int { head.count + tail.count + RenderPlan.badgeReserve }

    init(plan: RenderPlan, content: String, dataText: String) {
        let fragments = plan.fragments
        head.reserveCapacity(fragments.title.count + fragments.apnsAfterAlert.count + content.utf8.count * 2 + 64)
        head.appendLiteral("{\"aps\":{\"alert\":{\"title\":")
        head.append(contentsOf: fragments[fragments.title])
        head.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &head)
        head.append(UInt8(ascii: "}"))
        // `[,"sound":…],"thread-id":…,"category":…,"content-available":1,"mutable-content":1`
        head.append(contentsOf: fragments[fragments.apnsAfterAlert])

        tail.reserveCapacity(fragments.bytes.count + dataText.utf8.count * 2)
        tail.appendLiteral("},")
        tail.append(contentsOf: fragments[fragments.notifee])
        if fragments.hasData {
            tail.append(UInt8(ascii: ","))
            fragments.appendData(dataText: dataText, to: &tail)
        }
        tail.append(UInt8(ascii: "}"))
    }

    func payload(badge: Int?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(head.count + tail.count + 20)
        out.append(contentsOf: head)
        if let badge {
            out.appendLiteral(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &out)
        }
        out.append(contentsOf: tail)
        return out
    }
}
