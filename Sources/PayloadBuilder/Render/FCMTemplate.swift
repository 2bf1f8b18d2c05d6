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

    /// Room for what FCM adds to the APNs payload it builds: `"alert":`
    /// around the notification, and its own keys (`gcm.message_id`,
    /// `google.c.a.e`, `google.c.sender.id`, `google.c.fid`: about 130
    /// bytes with typical values, more with long ones).
    static let fcmAddedKeysReserve = 256

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

    /// Appends the body for one device to `out` (another buffer than the
    /// plan's `store`): the token quoted and escaped, then the template
    /// with the badge in its hole.
    func write(token: String, badge: Int?, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.appendLiteral(Self.head)
        out.appendJSONString(token)
        writeAfterToken(badge: badge, store: store, into: &out)
    }

    /// `write(token:badge:store:into:)` with the token already written,
    /// quoted and escaped, at `quotedToken` in `out` (the `/v1/render`
    /// answer names it just before the body).
    func write(quotedToken: Range<Int>, badge: Int?, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.appendLiteral(Self.head)
        out.appendCopy(of: quotedToken)
        writeAfterToken(badge: badge, store: store, into: &out)
    }

    /// The size of the body for `token` when it needs no escaping, with
    /// room for any badge.
    func expectedBodyCount(token: String) -> Int {
        Self.head.utf8CodeUnitCount + token.utf8.count + 2 + afterToken.count + RenderPlan.badgeReserve + tail.count
    }

    @inline(__always)
    private func writeAfterToken(badge: Int?, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.append(afterToken, of: store)
        if let badge {
            out.appendLiteral(Self.badgeKey)
            out.appendDecimal(Int64(badge))
        }
        out.append(tail, of: store)
    }

    private static let head: StaticString = "{\"message\":{\"token\":"
    private static let badgeKey: StaticString = ",\"badge\":"
}
