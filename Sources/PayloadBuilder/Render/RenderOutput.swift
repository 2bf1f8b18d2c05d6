/// Where `EventRenderer` puts what it renders, device by device: the
/// `RenderedEvent` of `render` (`RenderedEventOutput`), or the bytes of the
/// `/v1/render` answer of `renderReport` (`ReportOutput`), which makes no
/// request value at all.
///
/// The renderer calls `skip`, `fcm`, `apns`, `fcmWeb` and `webPush` in
/// recipient order, then `finish` once. `store` is the plan's: the templates' bytes are there.
protocol RenderOutput: ~Copyable {
    associatedtype Result

    /// The plan's store for this render (`RenderPlan.makeStore()`, or room
    /// the output already holds), made once, before anything is written.
    mutating func makeStore() -> ByteWriter

    /// A recipient not sent to, and why (`SkippedRecipient.reason`).
    mutating func skip(recipientIndex: Int, platform: Platform, token: String, reason: String)

    /// The FCM request for one device.
    mutating func fcm(recipientIndex: Int, token: String, badge: Int?, target: borrowing FCMTarget,
                      template: FCMTemplate, store: inout ByteWriter)

    /// The direct APNs request for one device; `ids` derives its `apns-id`.
    mutating func apns(recipientIndex: Int, token: String, badge: Int?, target: borrowing APNsTarget, plan: RenderPlan,
                       ids: APNsID, template: APNsTemplate, store: inout ByteWriter)

    /// The FCM request for one browser's web registration token.
    mutating func fcmWeb(recipientIndex: Int, token: String, target: borrowing FCMTarget, template: FCMWebTemplate,
                         store: inout ByteWriter)

    /// A `webpush` subscription not sent to, and why, with the plaintext
    /// it would be sent (`template`'s bytes in `store`).
    mutating func webPush(recipientIndex: Int, endpoint: String, reason: String, template: WebPushPlaintextTemplate,
                          store: borrowing ByteWriter)

    /// The direct web push request for one subscription: its plaintext
    /// (`template`'s bytes in `store`) as the body, encrypted by the transport.
    mutating func webPushRequest(recipientIndex: Int, endpoint: String, keys: WebPushKeys, headers: [ProviderRequest.Header],
                                 template: WebPushPlaintextTemplate, store: borrowing ByteWriter)

    /// The result, with the Communication Notification persona of `event`
    /// (its content in `personaLanguage`) and the avatar's state, the one
    /// `plan` was made with.
    consuming func finish(event: borrowing Event, plan: RenderPlan, personaLanguage: String, avatar: AvatarState,
                          store: borrowing ByteWriter) -> Result
}

/// The renderer's output as values: every provider request, ready to send.
///
/// The bodies are written one after another into one array, of which each
/// request's body is a slice: one allocation for all of an event's bodies
/// instead of one per device (an FCM body, over a kilobyte, is above the
/// size malloc caches per thread, so each took the allocator's slow path).
struct RenderedEventOutput: RenderOutput {
    private var requests: [ProviderRequest] = []
    private var skipped: [SkippedRecipient] = []
    /// The `apns-expiration` header's value, made for the first APNs request.
    private var expiration: String?
    /// Every request's body, in request order.
    private var bodies: [UInt8] = []
    /// Where each request's body ends in `bodies`.
    private var bodyEnds: [Int] = []
    private let recipientCount: Int

    init(recipientCount: Int) {
        self.recipientCount = recipientCount
        requests.reserveCapacity(recipientCount)
        bodyEnds.reserveCapacity(recipientCount)
    }

    func makeStore() -> ByteWriter {
        RenderPlan.makeStore()
    }

    mutating func skip(recipientIndex: Int, platform: Platform, token: String, reason: String) {
        skipped.append(SkippedRecipient(recipientIndex: recipientIndex, platform: platform, token: token, reason: reason))
    }

    mutating func fcm(recipientIndex: Int, token: String, badge: Int?, target: borrowing FCMTarget,
                      template: FCMTemplate, store: inout ByteWriter) {
        ByteWriter.append(to: &bodies, expected: template.expectedBodyCount(token: token)) {
            template.write(token: token, badge: badge, store: store, into: &$0)
        }
        bodyWritten(recipientIndex: recipientIndex)
        requests.append(ProviderRequest(
            platform: .fcm, recipientIndex: recipientIndex, token: token, origin: target.baseURL, path: target.sendPath,
            headers: ProviderRequest.fcmHeaders, body: []))
    }

    mutating func apns(recipientIndex: Int, token: String, badge: Int?, target: borrowing APNsTarget, plan: RenderPlan,
                       ids: APNsID, template: APNsTemplate, store: inout ByteWriter) {
        // Digits written directly: `String(_:)` of an integer goes through `description`.
        let expiration = self.expiration ?? JSONWriter.Decimal(plan.expirationSeconds).string
        self.expiration = expiration
        requests.append(ProviderRequest(
            platform: .apns, recipientIndex: recipientIndex, token: token, origin: target.baseURL,
            path: Concatenation.join(literal: "/3/device/", token),
            headers: [
                ProviderRequest.Header("apns-topic", target.topic),
                ProviderRequest.Header("apns-push-type", "alert"),
                ProviderRequest.Header("apns-priority", plan.apnsPriority),
                ProviderRequest.Header("apns-expiration", expiration),
                ProviderRequest.Header("apns-id", ids.id(token: token)),
                ProviderRequest.Header("apns-collapse-id", plan.collapseID),
            ],
            body: []))
        ByteWriter.append(to: &bodies, expected: template.expectedPayloadCount) {
            template.write(badge: badge, store: store, into: &$0)
        }
        bodyWritten(recipientIndex: recipientIndex)
    }

    /// Notes where the body just written ends; after the first, makes room
    /// for the rest of the event's bodies, taking each to be as large (the
    /// array grows from there if they are not).
    private mutating func bodyWritten(recipientIndex: Int) {
        if bodyEnds.isEmpty, recipientIndex + 1 < recipientCount {
            bodies.reserveCapacity(bodies.count * (recipientCount - recipientIndex) + 256)
        }
        bodyEnds.append(bodies.count)
    }

    mutating func fcmWeb(recipientIndex: Int, token: String, target: borrowing FCMTarget, template: FCMWebTemplate,
                         store: inout ByteWriter) {
        ByteWriter.append(to: &bodies, expected: template.expectedBodyCount(token: token)) {
            template.write(token: token, store: store, into: &$0)
        }
        bodyWritten(recipientIndex: recipientIndex)
        requests.append(ProviderRequest(
            platform: .fcmWeb, recipientIndex: recipientIndex, token: token, origin: target.baseURL, path: target.sendPath,
            headers: ProviderRequest.fcmHeaders, body: []))
    }

    mutating func webPush(recipientIndex: Int, endpoint: String, reason: String, template: WebPushPlaintextTemplate,
                          store: borrowing ByteWriter) {
        skipped.append(SkippedRecipient(recipientIndex: recipientIndex, platform: .webpush, token: endpoint, reason: reason,
                                        plaintext: store.bytes(template.bytes)))
    }

    mutating func webPushRequest(recipientIndex: Int, endpoint: String, keys: WebPushKeys, headers: [ProviderRequest.Header],
                                 template: WebPushPlaintextTemplate, store: borrowing ByteWriter) {
        ByteWriter.append(to: &bodies, expected: template.bytes.count) {
            $0.append(template.bytes, of: store)
        }
        bodyWritten(recipientIndex: recipientIndex)
        let split = WebPushEndpoint.originAndPath(endpoint)
        requests.append(ProviderRequest(
            platform: .webpush, recipientIndex: recipientIndex, token: endpoint, origin: split.origin, path: split.path,
            headers: headers, body: [], webPushKeys: keys))
    }

    consuming func finish(event: borrowing Event, plan: RenderPlan, personaLanguage: String, avatar: AvatarState,
                          store: borrowing ByteWriter) -> RenderedEvent {
        var start = 0
        for index in requests.indices {
            requests[index].body = bodies[start..<bodyEnds[index]]
            start = bodyEnds[index]
        }
        return RenderedEvent(eventID: event.eventID, requests: requests, skipped: skipped,
                             persona: CommunicationPersona(event: event, text: plan.text, avatar: avatar,
                                                           language: personaLanguage),
                             avatar: avatar)
    }
}
