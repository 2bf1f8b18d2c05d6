/// The FCM v1 `messages:send` body for a browser's web registration token
/// (`fcm_web`), of one event and content, with a hole for the token:
///
/// `{"message":{"token":…,"data":{…},"webpush":{"headers":{"TTL":…,
/// "Urgency":…,"Topic":…},"notification":{"title":…,"body":…[,"icon":…],
/// "tag":…,"renotify":true}[,"fcm_options":{"link":…}]}}}`
///
/// No `android` or `apns` block, and no top-level `notification`: FCM
/// shows `webpush.notification` on the web (the Notification API's
/// options: `icon` is the avatar when it resolved, `tag` the conversation,
/// so a newer message replaces the shown one, and `renotify` alerts again
/// when it does). The data keys are the Android message's.
struct FCMWebTemplate {
    /// Where everything after the token is in the plan's store.
    private let afterToken: Range<Int>
    /// What FCM delivers to the browser, conservatively: the JSON of `data`,
    /// `webpush.notification` and `fcm_options`, plus the room FCM takes for
    /// its own keys (`FCMTemplate.fcmAddedKeysReserve`); kept within 4096 bytes.
    let countedBytes: Int

    /// Writes the template at the end of `out`, the plan's store (where the fragments are).
    init(plan: RenderPlan, headers: WebPushHeaders, link: WebLinkTemplate?, conversationID: String,
         content: String, dataText: String, into out: inout ByteWriter) {
        let fragments = plan.fragments
        let start = out.count
        out.appendLiteral(",\"data\":")
        let dataStart = out.count
        out.append(UInt8(ascii: "{"))
        fragments.appendData(dataText: dataText, to: &out)
        out.append(UInt8(ascii: "}"))
        let dataBytes = out.count - dataStart
        // The header values need no escaping: digits, a priority name, base64url.
        out.appendLiteral(",\"webpush\":{\"headers\":{\"TTL\":\"")
        out.appendDecimal(Int64(headers.ttl))
        out.appendLiteral("\",\"Urgency\":\"")
        out.appendJSONStringContent(headers.urgency)
        out.appendLiteral("\",\"Topic\":\"")
        out.appendJSONStringContent(headers.topic)
        out.appendLiteral("\"},\"notification\":")
        let notificationStart = out.count
        out.appendLiteral("{\"title\":")
        out.appendCopy(of: fragments.title)
        out.appendLiteral(",\"body\":")
        fragments.appendBody(content: content, isGroup: plan.text.isGroup, to: &out)
        if let avatarURL = fragments.escaped.avatarURL {
            out.appendLiteral(",\"icon\":")
            out.appendCopy(of: avatarURL)
        }
        out.appendLiteral(",\"tag\":")
        out.appendCopy(of: fragments.escaped.conversationID)
        out.appendLiteral(",\"renotify\":true}")
        var counted = dataBytes + out.count - notificationStart
        if let link {
            let optionsStart = out.count
            out.appendLiteral(",\"fcm_options\":{\"link\":")
            link.appendQuotedLink(conversationID: conversationID, to: &out)
            out.append(UInt8(ascii: "}"))
            counted += out.count - optionsStart
        }
        out.appendLiteral("}}}")
        afterToken = start..<out.count
        countedBytes = counted + FCMTemplate.fcmAddedKeysReserve
    }

    /// Appends the body for one device to `out` (another buffer than the
    /// plan's `store`): the token quoted and escaped, then the template.
    func write(token: String, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.appendLiteral(Self.head)
        out.appendJSONString(token)
        out.append(afterToken, of: store)
    }

    /// The size of the body for `token` when it needs no escaping.
    func expectedBodyCount(token: String) -> Int {
        Self.head.utf8CodeUnitCount + token.utf8.count + 2 + afterToken.count
    }

    /// Appends the body for one device to `out` (another buffer than the
    /// plan's `store`), its token already written quoted and escaped at
    /// `quotedToken` in `out`: the bytes of `write(token:store:into:)`.
    func write(quotedToken: Range<Int>, store: borrowing ByteWriter, into out: inout ByteWriter) {
        out.appendLiteral(Self.head)
        out.appendCopy(of: quotedToken)
        out.append(afterToken, of: store)
    }

    private static let head: StaticString = "{\"message\":{\"token\":"
}
