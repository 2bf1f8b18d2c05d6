/// The direct APNs payload of one event and content, with a hole for the
/// badge (API.md "Direct APNs"): `aps` with the alert and the Communication
/// Notification flags, the notifee block, then the data keys at top level.
struct APNsTemplate {
    private var head: [UInt8] = []
    private var tail: [UInt8] = []

    /// Payload size with room for any badge; must stay within 4096 bytes.
    var countedBytes: Int { head.count + tail.count + RenderPlan.badgeReserve }

    init(plan: RenderPlan, content: String, dataText: String) {
        let event = plan.event
        let data = plan.dataEntries(dataText: dataText)
        head.reserveCapacity(1024)
        head.appendLiteral("{\"aps\":{\"alert\":{")
        head.appendMember("title", plan.text.title)
        head.append(UInt8(ascii: ","))
        head.appendMember("body", plan.text.body(content: content))
        head.append(UInt8(ascii: "}"))
        if let sound = event.notification.sound {
            head.append(UInt8(ascii: ","))
            head.appendMember("sound", sound)
        }
        head.append(UInt8(ascii: ","))
        head.appendMember("thread-id", event.conversation.id)
        head.appendLiteral(",\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")

        tail.appendLiteral("},")
        tail.append(contentsOf: plan.notifeeMember)
        if !data.entries.isEmpty {
            tail.append(UInt8(ascii: ","))
            data.appendMembers(to: &tail)
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
