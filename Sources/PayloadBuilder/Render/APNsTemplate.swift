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

    /// The payload for one device: one allocation of the exact size.
    func payload(badge: Int?, store: borrowing ByteWriter) -> [UInt8] {
        store.withContents { store in
            let badgeKey: StaticString = ",\"badge\":"
            let digitsCount = badge.map { JSONWriter.withDecimal(Int64($0)) { badgeKey.utf8CodeUnitCount + $0.count } } ?? 0
            return [UInt8](exactCount: head.count + digitsCount + rest.count) { out in
                out.put(UnsafeBufferPointer(rebasing: store[head]))
                if let badge {
                    out.put(badgeKey)
                    JSONWriter.withDecimal(Int64(badge)) { out.put($0) }
                }
                out.put(UnsafeBufferPointer(rebasing: store[rest]))
            }
        }
    }

    /// The payload appended piece by piece: the rule `payload(badge:store:)` must match.
    func simplePayload(badge: Int?, store: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: store[head])
        if let badge {
            out.appendLiteral(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &out)
        }
        out.append(contentsOf: store[rest])
        return out
    }
}
