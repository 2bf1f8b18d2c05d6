/// The FCM v1 `messages:send` body of one event and content, with holes for
/// the device token and badge (API.md "FCM v1").
///
/// `{"message":{"token":…,"notification":{…},"data":{…},"android":{…},
/// "apns":{"headers":{…},"payload":{"aps":{…,"badge":…},"notifee_options":{…}}}}}`
struct FCMTemplate {
    /// Where the template is in the plan's store: from `,"notification":`
    /// to the open `aps` object, then the tail (`}`, `,` the notifee block, `}}}}`).
    private let afterToken: Range<Int>
    private let tail: Range<Int>
    /// A conservative size of what FCM delivers to an iOS device: the JSON of
    /// `notification` (which becomes `aps.alert`), of `data` (which becomes
    /// top-level keys), of `apns.payload` with the badge reserve, plus room
    /// for the keys FCM adds itself (`gcm.message_id`, `google.c.*`). Kept
    /// within 4096 bytes, it also bounds the Android data + notification size.
    let countedBytes: Int

    /// Room for the keys FCM adds to the APNs payload it builds.
    static let fcmAddedKeysReserve = 128

    /// Writes the template at the end of `out`, the plan's store (where the fragments are).
    init(plan: RenderPlan, content: String, dataText: String, into out: inout ByteWriter) {
        let fragments = plan.fragments
        let start = out.count
        out.appendLiteral(",\"notification\":")
        let notificationStart = out.count
        out.appendLiteral("{\"title\":")
        out.appendCopy(of: fragments.title)
        out.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &out)
        out.append(UInt8(ascii: "}"))
        let notificationBytes = out.count - notificationStart
        out.appendLiteral(",\"data\":")
        let dataStart = out.count
        out.append(UInt8(ascii: "{"))
        fragments.appendData(dataText: dataText, to: &out)
        out.append(UInt8(ascii: "}"))
        let dataBytes = out.count - dataStart
        // `,"android":{…},"apns":{"headers":{…},"payload":{"aps":{…`
        out.appendCopy(of: fragments.fcmAfterData)
        afterToken = start..<out.count

        let tailStart = out.count
        out.appendLiteral("},")
        out.appendCopy(of: fragments.notifee)
        out.appendLiteral("}}}}")
        tail = tailStart..<out.count
        // `{` + aps… + badge + `},notifee` + `}`
        let payloadBytes = 1 + fragments.fcmApsBytes + RenderPlan.badgeReserve + (tail.count - 3)
        countedBytes = notificationBytes + dataBytes + payloadBytes + FCMTemplate.fcmAddedKeysReserve
    }

    /// The complete body for one device: one allocation of the exact size
    /// when the token needs no escaping (device tokens never do), else
    /// `simpleBody`.
    func body(token: String, badge: Int?, store: borrowing ByteWriter) -> [UInt8] {
        store.withContents { store in
            let assembled: [UInt8]?? = token.utf8.withContiguousStorageIfAvailable { utf8 in
                guard JSONEscaping.firstToEscape(in: utf8, from: 0) == utf8.count else { return nil }
                guard let badge else { return assemble(token: utf8, badgeDigits: nil, store: store) }
                return JSONWriter.withDecimal(Int64(badge)) { assemble(token: utf8, badgeDigits: $0, store: store) }
            }
            if let assembled, let body = assembled { return body }
            return simpleBody(token: token, badge: badge, store: store)
        }
    }

    private static let head: StaticString = "{\"message\":{\"token\":"
    private static let badgeKey: StaticString = ",\"badge\":"

    private func assemble(token: UnsafeBufferPointer<UInt8>, badgeDigits: UnsafeBufferPointer<UInt8>?,
                          store: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let badgeCount = badgeDigits.map { Self.badgeKey.utf8CodeUnitCount + $0.count } ?? 0
        let count = Self.head.utf8CodeUnitCount + token.count + 2 + afterToken.count + badgeCount + tail.count
        return [UInt8](exactCount: count) { out in
            out.put(Self.head)
            out.put(UInt8(ascii: "\""))
            out.put(token)
            out.put(UInt8(ascii: "\""))
            out.put(UnsafeBufferPointer(rebasing: store[afterToken]))
            if let badgeDigits {
                out.put(Self.badgeKey)
                out.put(badgeDigits)
            }
            out.put(UnsafeBufferPointer(rebasing: store[tail]))
        }
    }

    /// The body appended piece by piece, escaping the token: the rule
    /// `body(token:badge:)` must match.
    func simpleBody(token: String, badge: Int?, store: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(afterToken.count + tail.count + token.utf8.count + 40)
        out.appendLiteral("{\"message\":{\"token\":")
        out.appendJSONString(token)
        out.append(contentsOf: store[afterToken])
        if let badge {
            out.appendLiteral(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &out)
        }
        out.append(contentsOf: store[tail])
        return out
    }
}
