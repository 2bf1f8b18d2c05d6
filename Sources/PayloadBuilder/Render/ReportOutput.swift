/// The renderer's output as the compact `/v1/render` answer, written as
/// each device is rendered: the bytes `RenderReport.json(_:pretty: false)`
/// writes for the `RenderedEvent` of the same event, without making that
/// event (no request, header, path, `apns-id` or body value to allocate,
/// copy into the answer, and free).
///
/// Each request is written as `RenderReport`'s compact writer writes the
/// `ProviderRequest` that `RenderedEventOutput` makes (the same header
/// names, in the same order, and values); each body goes from the plan's
/// store straight into the answer. `ReportOutputTests` compares the two
/// paths byte for byte.
struct ReportOutput: RenderOutput, ~Copyable {
    private var out: ByteWriter
    private let storeRoom: UnsafeMutableBufferPointer<UInt8>
    private var wroteRequest = false
    private var skipped: [SkippedRecipient] = []

    /// Room for a usual answer for `recipients` devices.
    static func estimatedCount(recipients: Int) -> Int {
        1024 + 2048 * recipients
    }

    /// Starts the answer of the event `eventID` in `buffer`, and keeps
    /// `storeRoom` for the plan's store (both borrowed; either moves to
    /// memory of its own when it outgrows its room, see `ByteWriter`).
    init(eventID: String, writingInto buffer: UnsafeMutableBufferPointer<UInt8>, storeRoom: UnsafeMutableBufferPointer<UInt8>) {
        out = ByteWriter(writingInto: buffer)
        self.storeRoom = storeRoom
        out.appendLiteral("{\"event_id\":")
        out.appendJSONString(eventID)
        out.appendLiteral(",\"requests\":[")
    }

    func makeStore() -> ByteWriter {
        ByteWriter(writingInto: storeRoom)
    }

    mutating func skip(recipientIndex: Int, platform: Platform, token: String, reason: String) {
        skipped.append(SkippedRecipient(recipientIndex: recipientIndex, platform: platform, token: token, reason: reason))
    }

    /// `{"platform":…,"token":…,"method":"POST","url":"<origin>`; returns
    /// where the token was written, quoted.
    private mutating func beginRequest(_ platform: Platform, token: String, escapedOrigin: [UInt8]) -> Range<Int> {
        if wroteRequest { out.append(UInt8(ascii: ",")) }
        wroteRequest = true
        out.appendLiteral("{\"platform\":")
        RenderReport.appendPlatform(platform, to: &out)
        out.appendLiteral(",\"token\":")
        let tokenStart = out.count
        out.appendJSONString(token)
        let quotedToken = tokenStart..<out.count
        out.appendLiteral(",\"method\":\"POST\",\"url\":\"")
        // As `RenderReport.appendOrigin` writes it: escaped once, when set.
        out.append(escapedOrigin)
        return quotedToken
    }

    mutating func fcm(recipientIndex: Int, token: String, badge: Int?, target: borrowing FCMTarget,
                      template: FCMTemplate, store: inout ByteWriter) {
        let quotedToken = beginRequest(.fcm, token: token, escapedOrigin: target.escapedBaseURL)
        out.append(target.escapedSendPath)
        // `ProviderRequest.fcmHeaders`.
        out.appendLiteral("\",\"headers\":{\"authorization\":\"bearer <redacted>\",\"content-type\":\"application/json\"},\"body\":")
        template.write(quotedToken: quotedToken, badge: badge, store: store, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    mutating func apns(recipientIndex: Int, token: String, badge: Int?, target: borrowing APNsTarget, plan: RenderPlan,
                       ids: APNsID, template: APNsTemplate, store: inout ByteWriter) {
        let quotedToken = beginRequest(.apns, token: token, escapedOrigin: target.escapedBaseURL)
        // The path `/3/device/<token>`: escaping is per byte, so the token's
        // escaped bytes are those just written, without their quotes.
        out.appendLiteral("/3/device/")
        out.appendCopy(of: quotedToken.lowerBound + 1..<quotedToken.upperBound - 1)
        out.appendLiteral("\",\"headers\":{\"authorization\":\"bearer <redacted>\",\"apns-topic\":")
        out.append(target.quotedTopic)
        out.appendLiteral(",\"apns-push-type\":\"alert\",")
        // The same members as in the FCM body's `apns.headers`: copied from there.
        out.append(plan.fragments.escaped.apnsPriorityAndExpiration, of: store)
        // The id is hex digits and dashes: nothing to escape.
        out.appendLiteral(",\"apns-id\":\"")
        ids.append(token: token, to: &out)
        out.appendLiteral("\",")
        out.append(plan.fragments.escaped.apnsCollapseID, of: store)
        out.appendLiteral("},\"body\":")
        template.write(badge: badge, store: store, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    mutating func fcmWeb(recipientIndex: Int, token: String, target: borrowing FCMTarget, template: FCMWebTemplate,
                         store: inout ByteWriter) {
        let quotedToken = beginRequest(.fcmWeb, token: token, escapedOrigin: target.escapedBaseURL)
        out.append(target.escapedSendPath)
        // `ProviderRequest.fcmHeaders`.
        out.appendLiteral("\",\"headers\":{\"authorization\":\"bearer <redacted>\",\"content-type\":\"application/json\"},\"body\":")
        template.write(quotedToken: quotedToken, store: store, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    mutating func webPush(recipientIndex: Int, endpoint: String, reason: String, template: WebPushPlaintextTemplate,
                          store: borrowing ByteWriter) {
        skipped.append(SkippedRecipient(recipientIndex: recipientIndex, platform: .webpush, token: endpoint, reason: reason,
                                        plaintext: store.bytes(template.bytes)))
    }

    /// Written as `RenderReport` writes any request (rare enough that the
    /// request is made and written the general way).
    mutating func webPushRequest(recipientIndex: Int, endpoint: String, keys: WebPushKeys, headers: [ProviderRequest.Header],
                                 template: WebPushPlaintextTemplate, store: borrowing ByteWriter) {
        if wroteRequest { out.append(UInt8(ascii: ",")) }
        wroteRequest = true
        let split = WebPushEndpoint.originAndPath(endpoint)
        let request = ProviderRequest(platform: .webpush, recipientIndex: recipientIndex, token: endpoint, origin: split.origin,
                                      path: split.path, headers: headers, body: ArraySlice(store.bytes(template.bytes)),
                                      webPushKeys: keys)
        RenderReport.appendCompact(request, to: &out)
    }

    consuming func finish(event: borrowing Event, plan: RenderPlan, personaLanguage: String, avatar: AvatarState,
                          store: borrowing ByteWriter) -> Written {
        out.appendLiteral("],\"skipped\":[")
        RenderReport.appendSkipped(skipped, to: &out)
        out.appendLiteral("],\"persona\":")
        let senderAvatar = appendPersona(plan: plan, language: personaLanguage, store: store)
        out.appendLiteral(",\"avatar\":")
        // The avatar's URL is usually the sender's, just written: copied, not escaped again.
        RenderReport.appendCompact(avatar, written: senderAvatar.map { (plan.avatarURL, $0) }, to: &out)
        out.append(UInt8(ascii: "}"))
        return out.ownsItsMemory ? .moved(out.bytes) : .inPlace(count: out.count)
    }

    /// Where the answer is: the first `count` bytes of the buffer it was
    /// given, or, when it did not fit there, these bytes.
    enum Written {
        case inPlace(count: Int)
        case moved([UInt8])
    }

    /// The persona `CommunicationPersona(event:text:avatar:language:)`
    /// makes, written as `RenderReport` writes it, from the event strings
    /// the plan escaped into `store` (the sender's id, name and avatar URL,
    /// the conversation's id and title); only the content is escaped here.
    /// Returns where the sender's avatar URL was written, quoted, if it was.
    private mutating func appendPersona(plan: RenderPlan, language: String, store: borrowing ByteWriter) -> Range<Int>? {
        let fragments = plan.fragments
        out.appendLiteral("{\"sender\":{\"id\":")
        out.append(fragments.escaped.senderID, of: store)
        out.appendLiteral(",\"display_name\":")
        out.append(fragments.senderName, of: store)
        out.appendLiteral(",\"handle_type\":\"unknown\",\"is_me\":false")
        var senderAvatar: Range<Int>?
        if let avatarURL = fragments.escaped.avatarURL {
            out.appendLiteral(",\"avatar\":")
            let start = out.count
            out.append(avatarURL, of: store)
            senderAvatar = start..<out.count
        }
        out.appendLiteral("},\"me\":{\"id\":null,\"display_name\":null,\"handle_type\":\"unknown\",\"is_me\":true},")
        out.appendLiteral("\"conversation_id\":")
        out.append(fragments.escaped.conversationID, of: store)
        out.appendLiteral(",\"group_name\":")
        if let groupName = fragments.escaped.groupName {
            out.append(groupName, of: store)
        } else {
            out.appendLiteral("null")
        }
        out.appendLiteral(",\"content\":")
        // `NotificationText.body(content:)`, quoted, without making the string.
        let content = plan.text.content(language: language)
        if !plan.text.isGroup {
            out.appendJSONString(content)
        } else if content.isEmpty {
            out.append(fragments.senderName, of: store)
        } else {
            out.append(UInt8(ascii: "\""))
            out.append(fragments.senderNameUnquoted, of: store)
            out.appendLiteral(": ")
            out.appendJSONStringContent(content)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return senderAvatar
    }
}
