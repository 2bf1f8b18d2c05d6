/// The browser templates of one event (`fcm_web` bodies and `webpush`
/// plaintexts) by recipient language, fitted to their limits, and the web
/// push headers they share, made when the first browser recipient needs
/// them: an event for phones only makes none of it.
struct WebTemplates {
    private var headers: WebPushHeaders?
    private var requestHeaders: [ProviderRequest.Header]?
    private var fcmWebTemplates = TemplateCache<FCMWebTemplate>()
    private var plaintextTemplates = TemplateCache<WebPushPlaintextTemplate>()

    /// The `fcm_web` template for `language`, within FCM's 4096 bytes.
    mutating func fcmWeb(event: borrowing Event, app: borrowing AppProfile, plan: RenderPlan, language: String,
                         store: inout ByteWriter) throws(EventError) -> FCMWebTemplate {
        if let cached = fcmWebTemplates[language] { return cached }
        let headers = self.headers ?? WebPushHeaders(event: event)
        self.headers = headers
        let link = app.webLink
        let conversationID = event.conversation.id
        return try plan.template(event: event, language: language, cache: &fcmWebTemplates, store: &store,
                                 build: {
                                     FCMWebTemplate(plan: plan, headers: headers, link: link, conversationID: conversationID,
                                                    content: $0, dataText: $1, into: &$2)
                                 },
                                 size: { $0.countedBytes })
    }

    /// The direct web push headers of the event (`ttl`, `urgency`,
    /// `topic`, the content coding), made once.
    mutating func requestHeaders(event: borrowing Event) -> [ProviderRequest.Header] {
        if let requestHeaders { return requestHeaders }
        let headers = self.headers ?? WebPushHeaders(event: event)
        self.headers = headers
        requestHeaders = headers.requestHeaders
        return headers.requestHeaders
    }

    /// The `webpush` plaintext for `language`, within what one `aes128gcm`
    /// record of 4096 bytes holds (`WebPushPlaintextTemplate.limit`).
    mutating func plaintext(event: borrowing Event, plan: RenderPlan, language: String,
                            store: inout ByteWriter) throws(EventError) -> WebPushPlaintextTemplate {
        if let cached = plaintextTemplates[language] { return cached }
        return try plan.template(event: event, language: language, cache: &plaintextTemplates, store: &store,
                                 limit: WebPushPlaintextTemplate.limit,
                                 build: { WebPushPlaintextTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                 size: { $0.countedBytes })
    }
}
