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
        try renderRetrying(event, app: app, avatar: avatar, now: now) {
            RenderedEventOutput(recipientCount: event.recipients.count)
        }
    }

    /// The compact `/v1/render` answer for `event`: byte for byte
    /// `RenderReport.json(render(event, …), pretty: false)`, written while
    /// the event is rendered, without making the requests (`ReportOutput`).
    ///
    /// Written straight into the answer's storage, sized for a usual answer;
    /// a larger one moves to memory of its own and is copied once.
    public func renderReport(_ event: Event, app: AppProfile, avatar: AvatarState, now: Int64) throws(EventError) -> [UInt8] {
        try renderReport(event, app: app, avatar: avatar, now: now, reusing: [])
    }

    /// `renderReport(_:app:avatar:now:)` for the app at `appIndex` in
    /// `config.apps` (as `EventDecoder.decodeIndexed` gives it), written
    /// into `storage`'s memory when it is large enough and not shared (an
    /// answer sent before, handed back: a new one is a large allocation,
    /// glibc's slow path); else into new memory. Only the memory of
    /// `storage` is used, never its bytes; the answer is the same.
    ///
    /// Takes the event, the avatar and the renderer (`consuming`), as the
    /// writing needs them (see the private overload): a caller done with
    /// them hands them over without a copy.
    public consuming func renderReport(_ event: consuming Event, appIndex: Int, avatar: consuming AvatarState, now: Int64,
                                       reusing storage: consuming [UInt8] = []) throws(EventError) -> [UInt8] {
        let app = config.apps[appIndex]
        return try renderReport(event, app: app, avatar: avatar, now: now, reusing: storage)
    }

    /// Everything it uses is its own (`consuming`, `self` too): the closures
    /// that write into the array's memory capture owned values by address,
    /// where borrowed ones were each copied into their context (the event,
    /// the configuration and the avatar: 23 retains and their releases).
    private consuming func renderReport(_ event: consuming Event, app: consuming AppProfile, avatar: consuming AvatarState,
                                        now: Int64, reusing storage: consuming [UInt8]) throws(EventError) -> [UInt8] {
        var failure: EventError?
        var overflow: [UInt8]?
        // One allocation for the answer and, after its room, the plan's
        // store (`ReportOutput.makeStore()`): the store's own was a second
        // large malloc and free per event.
        let answerRoom = ReportOutput.estimatedCount(recipients: event.recipients.count)
        var report = storage
        // Emptied with its memory kept (memory of its own if it was shared),
        // then grown only when too small.
        report.removeAll(keepingCapacity: true)
        report.append(addingCapacity: answerRoom + RenderPlan.storeCapacity) { span in
            // `ByteWriter` writes through raw memory, so the output span's storage is lent to it.
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                do throws(EventError) {
                    switch try renderRetrying(event, app: app, avatar: avatar, now: now, output: {
                        ReportOutput(eventID: event.eventID, writingInto: UnsafeMutableBufferPointer(rebasing: buffer[..<answerRoom]),
                                     storeRoom: UnsafeMutableBufferPointer(rebasing: buffer[answerRoom...]))
                    }) {
                    case let .inPlace(count): initialized = count
                    case let .moved(bytes): overflow = bytes
                    }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return overflow ?? report
    }

    /// `renderOnce` into a fresh output, and again without the avatar when
    /// the event cannot fit with it (see `render`).
    private func renderRetrying<Output: RenderOutput & ~Copyable>(
        _ event: Event, app: AppProfile, avatar: AvatarState, now: Int64, output makeOutput: () -> Output
    ) throws(EventError) -> Output.Result {
        // What gives way when the payload is too large, in order: the
        // avatar, then the names (each written three times, cut to 64
        // characters and "…"), the avatar tried again with them. The caller's
        // extra data never does: refused as it is. Every attempt after the
        // first is on the failure path only.
        let dropped = avatar.forwardedURL.map { AvatarState.dropped(url: $0, reason: AvatarState.doesNotFitReason) }
        var failure: EventError
        do {
            return try renderOnce(event, app: app, avatar: avatar, now: now, into: makeOutput())
        } catch {
            failure = error
        }
        if let dropped {
            do {
                return try renderOnce(event, app: app, avatar: dropped, now: now, into: makeOutput())
            } catch {
                failure = error
            }
        }
        guard let shortened = event.withNamesShortened() else { throw failure }
        if let dropped {
            if let result = try? renderOnce(shortened, app: app, avatar: avatar, now: now, into: makeOutput()) { return result }
            return try renderOnce(shortened, app: app, avatar: dropped, now: now, into: makeOutput())
        }
        return try renderOnce(shortened, app: app, avatar: avatar, now: now, into: makeOutput())
    }

    private func renderOnce<Output: RenderOutput & ~Copyable>(
        _ event: Event, app: AppProfile, avatar: AvatarState, now: Int64, into output: consuming Output
    ) throws(EventError) -> Output.Result {
        // A local, lent to each call that writes there: a class's stored
        // `var` would be checked for exclusive access at every use.
        var store = output.makeStore()
        let plan = RenderPlan(event: event, app: app, avatarURL: avatar.forwardedURL, now: now, store: &store)
        let languageMatters = plan.text.plainText.isEmpty
        var fcmTemplates = TemplateCache<FCMTemplate>()
        var apnsTemplates = TemplateCache<APNsTemplate>()
        // Browsers' templates, and their per-event headers, made when the first browser needs them.
        var webTemplates = WebTemplates()
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
                output.skip(recipientIndex: index, platform: recipients[index].platform, token: recipients[index].token,
                            reason: "self")
                continue
            }
            switch recipients[index].platform {
            case .fcm:
                guard let fcm = app.fcm else {
                    output.skip(recipientIndex: index, platform: .fcm, token: recipients[index].token,
                                reason: "platform_not_configured")
                    continue
                }
                // Looked up before any builder is made: the builders'
                // closures, made per device, cost more than the lookup.
                let template: FCMTemplate
                if let cached = fcmTemplates[language] {
                    template = cached
                } else {
                    template = try plan.template(event: event, language: language, cache: &fcmTemplates, store: &store,
                                                 build: { FCMTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                                 size: { $0.countedBytes })
                }
                output.fcm(recipientIndex: index, token: recipients[index].token, badge: recipients[index].badge,
                           target: fcm, template: template, store: &store)
            case .apns:
                guard let apns = app.apns else {
                    output.skip(recipientIndex: index, platform: .apns, token: recipients[index].token,
                                reason: "platform_not_configured")
                    continue
                }
                let template: APNsTemplate
                if let cached = apnsTemplates[language] {
                    template = cached
                } else {
                    template = try plan.template(event: event, language: language, cache: &apnsTemplates, store: &store,
                                                 build: { APNsTemplate(plan: plan, content: $0, dataText: $1, into: &$2) },
                                                 size: { $0.countedBytes })
                }
                let ids = apnsIDs ?? APNsID(eventID: event.eventID)
                apnsIDs = ids
                output.apns(recipientIndex: index, token: recipients[index].token, badge: recipients[index].badge,
                            target: apns, plan: plan, ids: ids, template: template, store: &store)
            case .fcmWeb:
                guard let fcm = app.fcm else {
                    output.skip(recipientIndex: index, platform: .fcmWeb, token: recipients[index].token,
                                reason: SkippedRecipient.platformNotConfigured)
                    continue
                }
                let template = try webTemplates.fcmWeb(event: event, app: app, plan: plan, language: language, store: &store)
                output.fcmWeb(recipientIndex: index, token: recipients[index].token, target: fcm, template: template,
                              store: &store)
            case .webpush:
                let template = try webTemplates.plaintext(event: event, plan: plan, language: language, store: &store)
                // An app without a VAPID key answers each subscription as a
                // platform it is not configured for, with the plaintext it
                // would be sent (`/v1/render` shows it).
                guard app.sendsWebPush, let keys = recipients[index].webPushKeys else {
                    output.webPush(recipientIndex: index, endpoint: recipients[index].token,
                                   reason: SkippedRecipient.platformNotConfigured, template: template, store: store)
                    continue
                }
                output.webPushRequest(recipientIndex: index, endpoint: recipients[index].token, keys: keys,
                                      headers: webTemplates.requestHeaders(event: event), template: template, store: store)
            }
        }
        // With plain text the content does not depend on the language.
        let personaLanguage = languageMatters ? shared.language(defaultLocale: config.defaultLocale) : ""
        return output.finish(event: event, plan: plan, personaLanguage: personaLanguage, avatar: avatar, store: store)
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
