/// Renders one validated event into the provider requests for each of its
/// devices: the pure heart of the gateway (no sockets, no clock: `now` is
/// passed in).
///
/// Work that does not depend on the device is done once per event and per
/// recipient language; per device only the token, badge and `apns-id` are
/// written, so a 500-recipient event costs little more than one.
public struct EventRenderer: Sendable {
    public let config: RenderConfig

    public init(config: RenderConfig) {
        self.config = config
    }

    /// Renders `event` for `app`. `avatar` decides whether the avatar URL is
    /// forwarded; `now` is the current time in epoch seconds.
    ///
    /// An event that cannot fit the payload limit with its avatar URL, even
    /// with the text removed, is rendered without the avatar (dropped with
    /// `AvatarState.doesNotFitReason`) rather than refused: the avatar is
    /// decoration. Only what still does not fit without it is an error.
    public func render(_ event: Event, app: AppProfile, avatar: AvatarState, now: Int64) throws(EventError) -> RenderedEvent {
        do {
            return try renderOnce(event, app: app, avatar: avatar, now: now)
        } catch {
            guard let url = avatar.forwardedURL else { throw error }
            return try renderOnce(event, app: app, avatar: .dropped(url: url, reason: AvatarState.doesNotFitReason), now: now)
        }
    }

    private func renderOnce(_ event: Event, app: AppProfile, avatar: AvatarState, now: Int64) throws(EventError) -> RenderedEvent {
        // A local, lent to each call that writes there: a class's stored
        // `var` would be checked for exclusive access at every use.
        var store = RenderPlan.makeStore()
        let plan = RenderPlan(event: event, app: app, avatarURL: avatar.forwardedURL, now: now, store: &store)
        let languageMatters = plan.text.plainText.isEmpty
        var fcmTemplates = TemplateCache<FCMTemplate>()
        var apnsTemplates = TemplateCache<APNsTemplate>()
        var requests: [ProviderRequest] = []
        requests.reserveCapacity(event.recipients.count)
        var skipped: [SkippedRecipient] = []
        let senderIsSelf = !config.selfSenderIDs.isEmpty && config.selfSenderIDs.contains(event.sender.id)
        // Per-event part of the APNs requests, made when the first one needs it.
        var apnsIDs: APNsID?

        // The persona's language: every recipient's counts, skipped or not.
        var shared = SharedLanguage()

        // Fields are read through the array, in place: binding each recipient
        // to a local would copy it (retaining and releasing its strings).
        let recipients = event.recipients
        for index in recipients.indices {
            // Without plain text the content is a placeholder in the recipient's language.
            let language = languageMatters ? Locales.resolve(recipients[index].locale, defaultLocale: config.defaultLocale) : ""
            if languageMatters { shared.add(locale: recipients[index].locale, language: language) }
            if senderIsSelf || recipients[index].userID == event.sender.id {
                skipped.append(SkippedRecipient(recipientIndex: index, platform: recipients[index].platform,
                                                token: recipients[index].token, reason: "self"))
                continue
            }
            switch recipients[index].platform {
            case .fcm:
                guard let fcm = app.fcm else {
                    skipped.append(SkippedRecipient(recipientIndex: index, platform: .fcm, token: recipients[index].token,
                                                    reason: "platform_not_configured"))
                    continue
                }
                let template = try plan.template(event: event, language: language, cache: &fcmTemplates, store: &store,
                                                 build: { FCMTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                                 size: { $0.countedBytes })
                requests.append(ProviderRequest(
                    platform: .fcm, recipientIndex: index, token: recipients[index].token, origin: fcm.baseURL,
                    path: fcm.sendPath,
                    headers: ProviderRequest.fcmHeaders,
                    body: template.body(token: recipients[index].token, badge: recipients[index].badge, store: &store)))
            case .apns:
                guard let apns = app.apns else {
                    skipped.append(SkippedRecipient(recipientIndex: index, platform: .apns, token: recipients[index].token,
                                                    reason: "platform_not_configured"))
                    continue
                }
                let template = try plan.template(event: event, language: language, cache: &apnsTemplates, store: &store,
                                                 build: { APNsTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                                 size: { $0.countedBytes })
                let ids = apnsIDs ?? APNsID(eventID: event.eventID)
                apnsIDs = ids
                requests.append(ProviderRequest(
                    platform: .apns, recipientIndex: index, token: recipients[index].token, origin: apns.baseURL,
                    path: Concatenation.join(literal: "/3/device/", recipients[index].token),
                    headers: [
                        ProviderRequest.Header("apns-topic", apns.topic),
                        ProviderRequest.Header("apns-push-type", "alert"),
                        ProviderRequest.Header("apns-priority", plan.apnsPriority),
                        ProviderRequest.Header("apns-expiration", plan.expiration),
                        ProviderRequest.Header("apns-id", ids.id(token: recipients[index].token)),
                        ProviderRequest.Header("apns-collapse-id", plan.collapseID),
                    ],
                    body: template.payload(badge: recipients[index].badge, store: &store)))
            }
        }
        // With plain text the content does not depend on the language.
        let personaLanguage = languageMatters ? shared.language(defaultLocale: config.defaultLocale) : ""
        return RenderedEvent(eventID: event.eventID, requests: requests, skipped: skipped,
                             persona: CommunicationPersona(event: event, text: plan.text, avatar: avatar, language: personaLanguage),
                             avatar: avatar)
    }
}

/// The result of rendering one event: the requests to send, the recipients
/// skipped, and the resolved Communication Notification persona.
public struct RenderedEvent: Sendable, Equatable {
    public var eventID: String
    public var requests: [ProviderRequest]
    public var skipped: [SkippedRecipient]
    public var persona: CommunicationPersona
    public var avatar: AvatarState
}
