/// The properties every input must keep, however hostile: what the
/// `PayloadFuzzer` checks on each generated input and what
/// `FuzzRegressionTests` checks on the fixtures and on every past finding.
///
/// One input is tried every way it could be read: as JSON (parse, write,
/// re-parse), as a rendering configuration, and as an event under each of
/// `configs`, rendered at `now` with the avatar absent and unchecked. Refusals
/// (`EventError`, `ConfigError`) are correct answers; a broken property is a
/// `Violation` naming it. Pure: no clock, no I/O, the same answer every time.
public struct PayloadInvariants: Sendable {
    /// The configurations events are decoded and rendered under.
    public var configs: [RenderConfig]
    /// The clock for `apns-expiration`, in epoch seconds.
    public var now: Int64
    /// Properties not enforced: known, reported bugs not fixed yet, so that a
    /// fuzzer keeps looking for new ones. Empty means strict.
    public var tolerated: Set<Invariant>

    /// 2023-11-14T22:13:20Z: any fixed instant does.
    public static let fixedNow: Int64 = 1_700_000_000

    public init(configs: [RenderConfig] = PayloadInvariants.standardConfigs(), now: Int64 = PayloadInvariants.fixedNow,
                tolerated: Set<Invariant> = []) {
        self.configs = configs
        self.now = now
        self.tolerated = tolerated
    }

    /// What one `check` exercised, so callers can tell a pass from a no-op.
    public struct Summary: Sendable, Equatable {
        public var parsedAsJSON = false
        public var parsedAsConfig = false
        /// Configurations under which the input decoded as an event.
        public var decodedEvents = 0
        /// Successful renderings (one per configuration and avatar state).
        public var renderings = 0
        /// Provider requests whose properties were checked.
        public var requests = 0

        public init() {}
    }

    /// Runs every check on one input; throws the first broken property.
    @discardableResult
    public func check(_ input: [UInt8]) throws(Violation) -> Summary {
        var summary = Summary()
        summary.parsedAsJSON = try checkJSONRoundTrip(input)
        summary.parsedAsConfig = try checkConfig(input, into: &summary)
        for config in configs {
            try checkEvent(input, config: config, into: &summary)
        }
        return summary
    }

    // MARK: JSON

    /// A document that parses writes back (compact and pretty) to text that
    /// parses to an equal value, and writing is stable. Returns whether it parsed.
    public func checkJSONRoundTrip(_ input: [UInt8]) throws(Violation) -> Bool {
        guard let value = try? JSONParser.parse(input) else { return false }
        for pretty in [false, true] {
            var writer = JSONWriter(pretty: pretty)
            writer.value(value)
            let written = writer.bytes
            try require(.validUTF8, String(validating: written, as: UTF8.self) != nil,
                        "JSONWriter(pretty: \(pretty)) wrote invalid UTF-8")
            let reparsed: JSONValue
            do {
                reparsed = try JSONParser.parse(written)
            } catch {
                try violate(.jsonRoundTrip, "JSONWriter(pretty: \(pretty)) wrote text JSONParser refuses (\(error)): "
                    + Self.excerpt(written))
                continue
            }
            if reparsed != value {
                // A number that came back as the other kind (`1.0` as `1`) is told apart from any other change.
                let onlyNumberKind = Self.equalIgnoringNumberKind(reparsed, value)
                try violate(onlyNumberKind ? .jsonNumberKind : .jsonRoundTrip,
                            "parse → write(pretty: \(pretty)) → parse changed the value; written: " + Self.excerpt(written))
            }
            var again = JSONWriter(pretty: pretty)
            again.value(reparsed)
            try require(.jsonRoundTrip, again.bytes == written,
                        "writing the re-parsed value (pretty: \(pretty)) gave other bytes: " + Self.excerpt(again.bytes))
        }
        return true
    }

    /// Equality where an integer and a double of the same value are equal.
    static func equalIgnoringNumberKind(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case let (.int(a), .double(b)), let (.double(b), .int(a)):
            return Double(a) == b
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { equalIgnoringNumberKind($0, $1) }
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && equalIgnoringNumberKind($0.value, $1.value) }
        default:
            return lhs == rhs
        }
    }

    // MARK: configuration

    /// `RenderConfig(json:)` answers with a configuration or a `ConfigError`;
    /// a configuration it accepts renders a fixed event within every property.
    public func checkConfig(_ input: [UInt8]) throws(Violation) -> Bool {
        var summary = Summary()
        return try checkConfig(input, into: &summary)
    }

    private func checkConfig(_ input: [UInt8], into summary: inout Summary) throws(Violation) -> Bool {
        guard let config = try? RenderConfig(json: input) else { return false }
        // A hostile file may list many apps; a few show every path.
        for app in config.apps.prefix(4) {
            let event = Self.probeEvent(app: app.name)
            try checkRenderings(of: event, app: app, config: config, into: &summary)
        }
        return true
    }

    /// A valid event with one device per platform, an avatar and extra data.
    static func probeEvent(app: String) -> Event {
        Event(eventID: "probe:1", app: app,
              conversation: Conversation(id: "probe", title: "Probe group"),
              message: Message(id: "1", text: "Hello <b>there</b> &amp; bye", kind: .text, richText: true),
              sender: Sender(id: "sender", displayName: "Sender", avatarURL: "https://example.com/a.png"),
              recipients: [
                  Recipient(platform: .apns, token: String(repeating: "ab", count: 32), badge: 7, locale: "fr"),
                  Recipient(platform: .fcm, token: "fcm-probe-token", badge: nil, locale: "vi-VN"),
                  Recipient(platform: .fcmWeb, token: "fcm-web-probe-token", locale: "en"),
                  Recipient(platform: .webpush, token: "https://push.example.com/probe",
                            webPushKeys: WebPushKeys(p256dh: [4] + Array(repeating: 1, count: 64), auth: Array(repeating: 2, count: 16))),
              ],
              data: [DataEntry("probe_key", "probe value")])
    }

    // MARK: events

    /// Decodes `input` as an event under `config`; if it decodes, renders it
    /// with the avatar absent and unchecked and checks every rendering.
    public func checkEvent(_ input: [UInt8], config: RenderConfig) throws(Violation) {
        var summary = Summary()
        try checkEvent(input, config: config, into: &summary)
    }

    private func checkEvent(_ input: [UInt8], config: RenderConfig, into summary: inout Summary) throws(Violation) {
        guard let (event, app) = try? EventDecoder(config: config).decode(input) else { return }
        summary.decodedEvents += 1
        try checkRenderings(of: event, app: app, config: config, into: &summary)
    }

    private func checkRenderings(of event: Event, app: AppProfile, config: RenderConfig,
                                 into summary: inout Summary) throws(Violation) {
        let renderer = EventRenderer(config: config)
        let avatarURL = event.sender.avatarURL ?? "https://example.com/avatar.png"
        let avatars: [AvatarState] = [.none, .unchecked(url: avatarURL),
                                      .ok(url: avatarURL, mime: "image/png", bytes: 1234, sha256: String(repeating: "ab", count: 32)),
                                      .dropped(url: avatarURL, reason: "not_an_image")]
        for avatar in avatars {
            let report = Result { () throws(EventError) in try renderer.renderReport(event, app: app, avatar: avatar, now: now) }
            // An event too large to fit is refused at render time: a correct answer.
            let rendered: RenderedEvent
            do {
                rendered = try renderer.render(event, app: app, avatar: avatar, now: now)
            } catch {
                guard case let .failure(reportError) = report else {
                    return try violate(.renderReportAgrees, "renderReport answers an event render refuses (\(error))")
                }
                try require(.renderReportAgrees, reportError == error,
                            "renderReport refuses with \(reportError), render with \(error)")
                continue
            }
            let reportBytes = try? report.get()
            try require(.renderReportAgrees, reportBytes == RenderReport.json(rendered, pretty: false),
                        "renderReport does not write RenderReport.json of render's event: "
                            + (reportBytes.map { Self.excerpt($0) } ?? "it refuses it"))
            try check(rendered, recipients: event.recipients.count)
            summary.renderings += 1
            summary.requests += rendered.requests.count
        }
    }

    // MARK: renderings

    /// The properties of one rendered event of `recipients` devices.
    public func check(_ rendered: RenderedEvent, recipients: Int) throws(Violation) {
        try require(.recipientAccounting, rendered.requests.count + rendered.skipped.count == recipients,
                    "\(rendered.requests.count) requests + \(rendered.skipped.count) skipped for \(recipients) recipients")
        let indices = (rendered.requests.map(\.recipientIndex) + rendered.skipped.map(\.recipientIndex)).sorted()
        try require(.recipientAccounting, indices == Array(0..<recipients),
                    "recipient indices \(indices) are not each of 0..<\(recipients) once")

        try requireUTF8(rendered.eventID, "event_id")
        for request in rendered.requests {
            try check(request)
        }
        for skip in rendered.skipped {
            try requireUTF8(skip.token, "skipped token")
            try requireUTF8(skip.reason, "skipped reason")
            if let plaintext = skip.plaintext { try checkPlaintext(plaintext, of: skip) }
        }
        let persona = rendered.persona
        for (text, what) in [(persona.conversationID, "persona.conversation_id"), (persona.content, "persona.content"),
                             (persona.groupName ?? "", "persona.group_name"), (persona.sender.id ?? "", "persona.sender.id"),
                             (persona.sender.displayName ?? "", "persona.sender.display_name"),
                             (persona.sender.avatarURL ?? "", "persona.sender.avatar")] {
            try requireUTF8(text, what)
        }

        var reports: [JSONValue] = []
        for pretty in [false, true] {
            let report = RenderReport.json(rendered, pretty: pretty)
            try require(.validUTF8, String(validating: report, as: UTF8.self) != nil,
                        "RenderReport.json(pretty: \(pretty)) is not valid UTF-8")
            do {
                reports.append(try JSONParser.parse(report))
            } catch {
                try violate(.reportParses, "RenderReport.json(pretty: \(pretty)) does not parse (\(error)): "
                    + Self.excerpt(report))
            }
        }
        try require(.reportParses, reports.count < 2 || reports[0] == reports[1],
                    "the compact and pretty reports hold different values")
    }

    private func check(_ request: ProviderRequest) throws(Violation) {
        let who = "\(request.platform.rawValue) request for recipients[\(request.recipientIndex)]"
        try requireUTF8(request.token, "\(who): token")
        try requireUTF8(request.url, "\(who): url")
        try require(.requestTarget, !request.path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
                    "\(who): the path has a space or control character: \(request.path.debugDescription)")
        for header in request.headers {
            try requireUTF8(header.name, "\(who): header name")
            try requireUTF8(header.value, "\(who): \(header.name)")
            // The topic comes from the configuration, every other value from the event.
            let fromConfiguration = header.name == "apns-topic"
            try require(fromConfiguration ? .topicHeaderValue : .headerControlCharacters,
                        !header.value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }),
                        "\(who): \(header.name) has a control character: \(header.value.debugDescription)")
            if let first = header.value.utf8.first, let last = header.value.utf8.last {
                try require(fromConfiguration ? .topicHeaderValue : .headerSurroundingWhitespace,
                            !Self.isSpaceOrTab(first) && !Self.isSpaceOrTab(last),
                            "\(who): \(header.name) starts or ends with a space or tab (RFC 9113 §8.2.1): "
                                + header.value.debugDescription)
            }
        }
        if let collapseID = request.header("apns-collapse-id") {
            try require(.collapseIDLength, collapseID.utf8.count <= 64,
                        "\(who): apns-collapse-id has \(collapseID.utf8.count) bytes, over 64")
        }

        let body = Array(request.body)
        try require(.validUTF8, String(validating: body, as: UTF8.self) != nil, "\(who): the body is not valid UTF-8")
        if request.platform == .apns {
            try require(.apnsPayloadSize, body.count <= Self.payloadLimit,
                        "\(who): the APNs payload has \(body.count) bytes, over \(Self.payloadLimit)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            try violate(.canonicalBody, "\(who): the body does not parse (\(error)): " + Self.excerpt(body))
            return
        }
        let rewritten = Self.compact(value)
        try require(.canonicalBody, rewritten == body,
                    "\(who): the body is not canonical compact JSON; re-written: " + Self.excerpt(rewritten))

        switch request.platform {
        case .apns:
            try require(.canonicalBody, value["aps"] != nil, "\(who): the APNs payload has no aps")
        case .fcm:
            guard let message = value["message"], let payload = message["apns"]?["payload"] else {
                try violate(.canonicalBody, "\(who): no message.apns.payload in the FCM body")
                return
            }
            let payloadBytes = Self.compact(payload).count
            try require(.apnsPayloadSize, payloadBytes <= Self.payloadLimit,
                        "\(who): message.apns.payload has \(payloadBytes) bytes, over \(Self.payloadLimit)")
            // README "Size fitting": notification + data + apns.payload + 256 bytes for what FCM adds.
            let counted = Self.compact(message["notification"] ?? .null).count + Self.compact(message["data"] ?? .null).count
                + payloadBytes + 256
            try require(.fcmCountedSize, counted <= Self.payloadLimit,
                        "\(who): notification + data + apns.payload + 256 = \(counted) bytes, over \(Self.payloadLimit)")
        case .fcmWeb:
            guard let message = value["message"], let webpush = message["webpush"],
                  message["android"] == nil, message["apns"] == nil else {
                try violate(.canonicalBody, "\(who): an fcm_web body has message.webpush and no android or apns block")
                return
            }
            // FCMWebTemplate: data + webpush.notification + fcm_options + 256 bytes for what FCM adds.
            let counted = Self.compact(message["data"] ?? .null).count + Self.compact(webpush["notification"] ?? .null).count
                + (webpush["fcm_options"].map { Self.compact($0).count + 15 } ?? 0) + 256
            try require(.fcmCountedSize, counted <= Self.payloadLimit,
                        "\(who): data + webpush.notification + fcm_options + 256 = \(counted) bytes, over \(Self.payloadLimit)")
        case .webpush:
            // The body is the plaintext the transport encrypts: one record's worth.
            try require(.webPushPlaintextSize, request.body.count <= WebPushPlaintextTemplate.limit,
                        "\(who): a plaintext of \(request.body.count) bytes, over \(WebPushPlaintextTemplate.limit)")
            try require(.canonicalBody, value["title"] != nil && value["tag"] != nil && value["data"] != nil,
                        "\(who): a web push plaintext has title, tag and data")
            try require(.canonicalBody, request.webPushKeys != nil, "\(who): a webpush request carries the subscription's keys")
        }
    }

    /// A web push plaintext: canonical compact JSON, within what one
    /// `aes128gcm` record of 4096 bytes holds.
    private func checkPlaintext(_ plaintext: [UInt8], of skip: SkippedRecipient) throws(Violation) {
        let who = "webpush plaintext for recipients[\(skip.recipientIndex)]"
        try require(.webPushPlaintextSize, plaintext.count <= WebPushPlaintextTemplate.limit,
                    "\(who): \(plaintext.count) bytes, over \(WebPushPlaintextTemplate.limit)")
        guard let value = try? JSONParser.parse(plaintext) else {
            return try violate(.canonicalBody, "\(who): does not parse: " + Self.excerpt(plaintext))
        }
        try require(.canonicalBody, Self.compact(value) == plaintext, "\(who): not canonical compact JSON")
    }

    // MARK: helpers

    static let payloadLimit = 4096

    private func require(_ invariant: Invariant, _ holds: Bool, _ message: @autoclosure () -> String) throws(Violation) {
        if !holds { try violate(invariant, message()) }
    }

    /// Reports `invariant` as broken, unless it is tolerated.
    private func violate(_ invariant: Invariant, _ message: @autoclosure () -> String) throws(Violation) {
        if !tolerated.contains(invariant) { throw Violation(invariant, message()) }
    }

    /// Swift strings are valid UTF-8 by construction; the bytes are checked
    /// anyway, since they are what goes on the wire.
    private func requireUTF8(_ text: String, _ what: String) throws(Violation) {
        try require(.validUTF8, String(validating: Array(text.utf8), as: UTF8.self) != nil, "\(what) is not valid UTF-8")
    }

    private static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    private static func compact(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes
    }

    /// The start of `bytes` as text, for a violation message.
    static func excerpt(_ bytes: [UInt8], limit: Int = 300) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return text.debugDescription + (bytes.count > limit ? " … (\(bytes.count) bytes)" : "")
    }
}

extension PayloadInvariants {
    /// One property of the checks. An open set, named in violations and in `tolerated`.
    public struct Invariant: Sendable, Hashable, CustomStringConvertible {
        public let name: String

        public init(_ name: String) {
            self.name = name
        }

        public var description: String { name }

        /// Parsed JSON written back (compact or pretty) parses to an equal value, and writing is stable.
        public static let jsonRoundTrip = Invariant("json-round-trip")
        /// Parsed JSON written back keeps each number's kind: a double stays a double, an integer an integer.
        public static let jsonNumberKind = Invariant("json-number-kind")
        /// Requests plus skipped recipients account for every recipient exactly once.
        public static let recipientAccounting = Invariant("recipient-accounting")
        /// Every body parses and is byte-identical to its compact re-serialization.
        public static let canonicalBody = Invariant("canonical-body")
        /// A direct APNs payload, and the `apns.payload` of an FCM message, is at most 4096 bytes.
        public static let apnsPayloadSize = Invariant("apns-payload-size")
        /// FCM: notification + data + apns.payload + 256 bytes is at most 4096 (README, "Size fitting"); for a
        /// browser's token, data + webpush.notification + fcm_options + 256.
        public static let fcmCountedSize = Invariant("fcm-counted-size")
        /// A web push plaintext fits one `aes128gcm` record of 4096 bytes (`WebPushPlaintextTemplate.limit`).
        public static let webPushPlaintextSize = Invariant("webpush-plaintext-size")
        /// No header value from the event holds an ASCII control character (CR and LF above all).
        public static let headerControlCharacters = Invariant("header-control-characters")
        /// No header value from the event starts or ends with a space or tab (RFC 9113 §8.2.1 makes it malformed).
        public static let headerSurroundingWhitespace = Invariant("header-surrounding-whitespace")
        /// `apns-topic`, from the configuration, has no control character and no surrounding space or tab.
        public static let topicHeaderValue = Invariant("topic-header-value")
        /// `apns-collapse-id` is at most 64 bytes (Apple's limit).
        public static let collapseIDLength = Invariant("collapse-id-length")
        /// The request path (HTTP/2 `:path`) has no space or control character.
        public static let requestTarget = Invariant("request-target")
        /// Every string and byte output is valid UTF-8.
        public static let validUTF8 = Invariant("valid-utf8")
        /// `RenderReport.json`, compact and pretty, parses, to the same value.
        public static let reportParses = Invariant("report-parses")

        /// `EventRenderer.renderReport` writes `RenderReport.json` of `render`'s event, or refuses it too.
        public static let renderReportAgrees = Invariant("render-report-agrees")

        /// Every property checked.
        public static let all: [Invariant] = [
            .jsonRoundTrip, .jsonNumberKind, .recipientAccounting, .canonicalBody, .apnsPayloadSize, .fcmCountedSize,
            .headerControlCharacters, .headerSurroundingWhitespace, .topicHeaderValue, .collapseIDLength, .requestTarget, .validUTF8,
            .reportParses, .renderReportAgrees, .webPushPlaintextSize,
        ]
    }

    /// A broken property: which one, and what was seen.
    public struct Violation: Error, Sendable, CustomStringConvertible {
        public let invariant: Invariant
        public let message: String

        public init(_ invariant: Invariant, _ message: String) {
            self.invariant = invariant
            self.message = message
        }

        public var description: String { "invariant \(invariant) broken: \(message)" }
    }
}

extension PayloadInvariants {
    /// Properties broken by reported bugs that are not fixed yet. The fuzzer
    /// tolerates them so that it goes on finding new bugs; each has a
    /// regression input `fixtures/fuzz-regressions/open--<invariant>--NAME.bin`
    /// that `FuzzRegressionTests` checks still breaks it, and that test fails
    /// once the bug is fixed: then drop the entry here and the `open--<invariant>--`
    /// prefix from the file name, so the input is checked strictly from then on.
    public static let openFindings: Set<Invariant> = []
}

extension PayloadInvariants {
    /// The configurations every input is tried under: the demo (one app,
    /// default data keys) and two apps whose data keys are renamed or left
    /// out, with a self-sender and a default locale that has placeholders.
    public static func standardConfigs() -> [RenderConfig] {
        [RenderConfig.demo(), twoApps]
    }

    /// Apps `consumer` (both platforms; `avatar_url` and `is_rtf` left out,
    /// `title` renamed; a web link template; `webpush` subscriptions skipped) and `business`
    /// (sandbox APNs and FCM; thread and message ids renamed as in
    /// `fixtures/payloads/two-apps.config.json`; a VAPID key, so subscriptions are requests).
    private static let twoApps: RenderConfig = {
        do {
            let consumerKeys = try DataKeyNames(renaming: [("avatar_url", nil), ("is_rtf", nil), ("title", "heading")])
            let businessKeys = try DataKeyNames(renaming: [("ps_thread_id", "threadId"), ("ps_message_id", "messageId"),
                                                           ("sender_name", "from_name")])
            let consumer = AppProfile(name: "consumer", apns: APNsTarget(topic: "com.example.chat"),
                                      fcm: FCMTarget(projectID: "chat-prod"), dataKeys: consumerKeys,
                                      webLink: try WebLinkTemplate("https://chat.example/c/{conversation_id}?from=push",
                                                                   setting: "apps[0].web.link_template"))
            let business = AppProfile(name: "business",
                                      apns: APNsTarget(topic: "com.example.chat.business", baseURL: APNsTarget.sandbox),
                                      fcm: FCMTarget(projectID: "chat-business"), dataKeys: businessKeys, sendsWebPush: true)
            return try RenderConfig(apps: [consumer, business], defaultLocale: "vi", selfSenderIDs: ["owner"])
        } catch {
            fatalError("the built-in two-app configuration is refused: \(error)")
        }
    }()
}
