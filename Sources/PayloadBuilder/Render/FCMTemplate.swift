/// The FCM v1 `messages:send` body of one event and content, with holes for
/// the device token and badge (API.md "FCM v1").
///
/// `{"message":{"token":…,"notification":{…},"data":{…},"android":{…},
/// "apns":{"headers":{…},"payload":{"aps":{…,"badge":…},"notifee_options":{…}}}}}`
struct FCMTemplate {
    private var afterToken: [UInt8] = []
    private var tail: [UInt8] = []
    /// A conservative size of what FCM delivers to an iOS device: the JSON of
    /// `notification` (which becomes `aps.alert`), of `data` (which becomes
    /// top-level keys), of `apns.payload` with the badge reserve, plus room
    /// for the keys FCM adds itself (`gcm.message_id`, `google.c.*`). Kept
    /// within 4096 bytes, it also bounds the Android data + notification size.
    private(set) var countedBytes = 0

    /// Room for the keys FCM adds to the APNs payload it builds.
    static let fcmAddedKeysReserve = 128

    init(plan: RenderPlan, content: String, dataText: String) {
        let event = plan.event
        let body = plan.text.body(content: content)
        let data = plan.dataEntries(dataText: dataText)

        afterToken.reserveCapacity(1024)
        afterToken.appendLiteral(",\"notification\":")
        let notificationStart = afterToken.count
        afterToken.append(UInt8(ascii: "{"))
        afterToken.appendMember("title", plan.text.title)
        afterToken.append(UInt8(ascii: ","))
        afterToken.appendMember("body", body)
        afterToken.append(UInt8(ascii: "}"))
        let notificationBytes = afterToken.count - notificationStart
        afterToken.appendLiteral(",\"data\":")
        let dataStart = afterToken.count
        afterToken.append(UInt8(ascii: "{"))
        data.appendMembers(to: &afterToken)
        afterToken.append(UInt8(ascii: "}"))
        let dataBytes = afterToken.count - dataStart
        afterToken.appendLiteral(",\"android\":{")
        afterToken.appendMember("collapse_key", event.conversation.id)
        afterToken.append(UInt8(ascii: ","))
        afterToken.appendMember("priority", event.notification.priority.rawValue)
        afterToken.append(UInt8(ascii: ","))
        afterToken.appendMember("ttl", "\(event.notification.ttlSeconds)s")
        afterToken.appendLiteral("},\"apns\":{\"headers\":{")
        afterToken.appendMember("apns-priority", plan.apnsPriority)
        afterToken.append(UInt8(ascii: ","))
        afterToken.appendMember("apns-expiration", plan.expiration)
        afterToken.append(UInt8(ascii: ","))
        afterToken.appendMember("apns-collapse-id", plan.collapseID)
        afterToken.appendLiteral("},\"payload\":{")
        let payloadStart = afterToken.count
        afterToken.appendLiteral("\"aps\":{\"category\":\"communications\",\"content-available\":1,\"mutable-content\":1")
        if let sound = event.notification.sound {
            afterToken.append(UInt8(ascii: ","))
            afterToken.appendMember("sound", sound)
        }
        let apsBytes = afterToken.count - payloadStart

        tail.append(UInt8(ascii: "}"))
        tail.append(UInt8(ascii: ","))
        tail.append(contentsOf: plan.notifeeMember)
        tail.appendLiteral("}}}}")
        // `{` + aps… + badge + `},notifee` + `}`
        let payloadBytes = 1 + apsBytes + RenderPlan.badgeReserve + (tail.count - 3)
        countedBytes = notificationBytes + dataBytes + payloadBytes + FCMTemplate.fcmAddedKeysReserve
    }

    /// The complete body for one device.
    func body(token: String, badge: Int?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(afterToken.count + tail.count + token.utf8.count + 40)
        out.appendLiteral("{\"message\":{\"token\":")
        out.appendJSONString(token)
        out.append(contentsOf: afterToken)
        if let badge {
            out.appendLiteral(",\"badge\":")
            JSONWriter.appendDecimal(Int64(badge), to: &out)
        }
        out.append(contentsOf: tail)
        return out
    }
}
