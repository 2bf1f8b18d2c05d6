/// The direct APNs payload of one event and content, with a hole for the
/// badge (API.md "Direct APNs"): `aps` with the alert and the Communication
/// Notification flags, the notifee block, then the data keys at top level.
struct APNsTemplate {
    /// The payload without the badge: the part before the badge's place
    /// (`headCount` bytes), then the rest.
    private var bytes: [UInt8] = []
    private var headCount = 0

    /// Payload size with room for any badge; must stay within 4096 bytes.
    var countedBytes: Int { bytes.count + RenderPlan.badgeReserve }

    init(plan: RenderPlan, content: String, dataText: String) {
        let fragments = plan.fragments
        var out = ByteWriter(capacity: fragments.bytes.count + (content.utf8.count + dataText.utf8.count) * 2 + 64)
        out.appendLiteral("{\"aps\":{\"alert\":{\"title\":")
        fragments.append(fragments.title, to: &out)
        out.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &out)
        out.append(UInt8(ascii: "}"))
        // `[,"sound":…],"thread-id":…,"category":…,"content-available":1,"mutable-content":1`
        fragments.append(fragments.apnsAfterAlert, to: &out)
        headCount = out.count

        out.appendLiteral("},")
        fragments.append(fragments.notifee, to: &out)
        if fragments.hasData {
            out.append(UInt8(ascii: ","))
            fragments.appendData(dataText: dataText, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        bytes = out.bytes
    }

    /// The payload for one device: one allocation of the exact size.
    func payload(badge: Int?) -> [UInt8] {
        guard let badge else { return bytes }
        var payload: [UInt8] = []
        JSONWriter.withDecimal(Int64(badge)) { digits in
            let badgeKey: StaticString = ",\"badge\":"
            payload = [UInt8](exactCount: bytes.count + badgeKey.utf8CodeUnitCount + digits.count) { out in
                bytes.withUnsafeBufferPointer { template in
                    out.put(UnsafeBufferPointer(rebasing: template[..<headCount]))
                    out.put(badgeKey)
                    out.put(digits)
                    out.put(UnsafeBufferPointer(rebasing: template[headCount...]))
                }
            }
        }
        return payload
    }

    /// The payload appended piece by piece: the rule `payload(badge:)` must match.
    func simplePayload(badge: Int?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 20)
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<headCount])) }
        if let badge {
            out.appendLiteral(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &out)
        }
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[headCount...])) }
        return out
    }
}
