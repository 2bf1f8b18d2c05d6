/// What rendering needs to know about the deployment: the configured apps,
/// the default locale and the self-sender rule. A `Sendable` value built once
/// at start-up; nothing here is read from the environment.
///
/// Its fields live in one shared, immutable box (as `AppProfile`'s): a copy
/// (a renderer handed the configuration for one event) is one retain, not
/// one per array, set and string. Setting a field makes a new box.
public struct RenderConfig: Sendable {
    /// The fields; `let`s, so they are read in place.
    private final class Fields: Sendable {
        let apps: [AppProfile]
        let defaultLocale: String
        let selfSenderIDs: Set<String>
        let limits: EventLimits

        init(apps: [AppProfile], defaultLocale: String, selfSenderIDs: Set<String>, limits: EventLimits) {
            self.apps = apps
            self.defaultLocale = defaultLocale
            self.selfSenderIDs = selfSenderIDs
            self.limits = limits
        }
    }

    private var fields: Fields

    public var apps: [AppProfile] {
        get { fields.apps }
        set { fields = Fields(apps: newValue, defaultLocale: defaultLocale, selfSenderIDs: selfSenderIDs, limits: limits) }
    }

    /// The locale for recipients that carry none (primary subtag, e.g. `en`).
    public var defaultLocale: String {
        get { fields.defaultLocale }
        set { fields = Fields(apps: apps, defaultLocale: newValue, selfSenderIDs: selfSenderIDs, limits: limits) }
    }

    /// Senders whose events are never sent (e.g. the site owner's own replies).
    public var selfSenderIDs: Set<String> {
        get { fields.selfSenderIDs }
        set { fields = Fields(apps: apps, defaultLocale: defaultLocale, selfSenderIDs: newValue, limits: limits) }
    }

    public var limits: EventLimits {
        get { fields.limits }
        set { fields = Fields(apps: apps, defaultLocale: defaultLocale, selfSenderIDs: selfSenderIDs, limits: newValue) }
    }

    public init(apps: [AppProfile], defaultLocale: String = "en", selfSenderIDs: Set<String> = [],
                limits: EventLimits = EventLimits()) throws(ConfigError) {
        guard !apps.isEmpty else { throw ConfigError(setting: "apps", "configure at least one app") }
        var seen = Set<String>()
        for (index, app) in apps.enumerated() {
            guard seen.insert(app.name).inserted else {
                throw ConfigError(setting: "apps[\(index)].name", "the app name \"\(app.name)\" is used twice")
            }
            // The topic is sent as the apns-topic header value.
            if let topic = app.apns?.topic, topic.isEmpty || topic.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
                throw ConfigError(setting: "apps[\(index)].apns.topic", "a bundle id, without spaces or control characters")
            }
        }
        fields = Fields(apps: apps, defaultLocale: Locales.primarySubtag(defaultLocale), selfSenderIDs: selfSenderIDs,
                        limits: limits)
    }

    /// The app an event names, or the only one when it names none.
    public func app(named name: String?) throws(EventError) -> AppProfile {
        apps[try appIndex(named: name)]
    }

    /// Where in `apps` the app of `app(named:)` is: found without copying
    /// its profile (a copy retains and releases each of its strings).
    func appIndex(named name: String?) throws(EventError) -> Int {
        if let name {
            guard let index = apps.firstIndex(where: { $0.name == name }) else {
                let known = apps.map(\.name).joined(separator: ", ")
                throw EventError(.unknownApp, field: "app", "no app named \"\(name)\" is configured (configured: \(known))")
            }
            return index
        }
        guard apps.count == 1 else {
            throw EventError(.unknownApp, field: "app", "\(apps.count) apps are configured: name one in \"app\"")
        }
        return 0
    }
}

/// The bounds on an event that API.md sets; configurable for tests and tuning.
public struct EventLimits: Sendable {
    public var maximumBodyBytes = 64 * 1024
    public var maximumRecipients = 500
    /// Ids (conversation, message, sender, user, event) longer than this
    /// many characters (Unicode scalars, not bytes) are refused.
    public var maximumIDBytes = 256
    /// The longest avatar URL, in characters (Unicode scalars).
    public var maximumURLBytes = 2048

    public init() {}
}

/// One app the gateway sends as: its APNs topic and FCM project, how its
/// data keys are named, and the page its web notifications open.
///
/// A value whose fields live in one shared, immutable box: a copy (one per
/// event, from the configuration) is one retain, not one per string and
/// array of its eleven fields. Setting a field makes a new box
/// (configuration only).
public struct AppProfile: Sendable {
    /// The fields; `let`s, so a profile's fields are read in place.
    private final class Fields: Sendable {
        let name: String
        let apns: APNsTarget?
        let fcm: FCMTarget?
        let dataKeys: DataKeyNames
        let webLink: WebLinkTemplate?
        let sendsWebPush: Bool

        init(name: String, apns: APNsTarget?, fcm: FCMTarget?, dataKeys: DataKeyNames, webLink: WebLinkTemplate?,
             sendsWebPush: Bool) {
            self.name = name
            self.apns = apns
            self.fcm = fcm
            self.dataKeys = dataKeys
            self.webLink = webLink
            self.sendsWebPush = sendsWebPush
        }
    }

    private var fields: Fields

    public var name: String {
        get { fields.name }
        set { fields = Fields(name: newValue, apns: apns, fcm: fcm, dataKeys: dataKeys, webLink: webLink, sendsWebPush: sendsWebPush) }
    }

    /// Where and as what to send direct APNs requests; nil if the app has no APNs key.
    public var apns: APNsTarget? {
        get { fields.apns }
        set { fields = Fields(name: name, apns: newValue, fcm: fcm, dataKeys: dataKeys, webLink: webLink, sendsWebPush: sendsWebPush) }
    }

    /// Which FCM project to send through; nil if the app has no service account.
    public var fcm: FCMTarget? {
        get { fields.fcm }
        set { fields = Fields(name: name, apns: apns, fcm: newValue, dataKeys: dataKeys, webLink: webLink, sendsWebPush: sendsWebPush) }
    }

    public var dataKeys: DataKeyNames {
        get { fields.dataKeys }
        set { fields = Fields(name: name, apns: apns, fcm: fcm, dataKeys: newValue, webLink: webLink, sendsWebPush: sendsWebPush) }
    }

    /// The page a browser notification opens (`fcm_web`'s
    /// `webpush.fcm_options.link`); nil: none, the browser's default.
    public var webLink: WebLinkTemplate? {
        get { fields.webLink }
        set { fields = Fields(name: name, apns: apns, fcm: fcm, dataKeys: dataKeys, webLink: newValue, sendsWebPush: sendsWebPush) }
    }

    /// Whether the app sends `webpush` subscriptions their messages (it has
    /// a VAPID key): then each is rendered as a request (its plaintext as
    /// the body, which the transport encrypts); else each is skipped with
    /// `platform_not_configured`.
    public var sendsWebPush: Bool {
        get { fields.sendsWebPush }
        set { fields = Fields(name: name, apns: apns, fcm: fcm, dataKeys: dataKeys, webLink: webLink, sendsWebPush: newValue) }
    }

    public init(name: String, apns: APNsTarget? = nil, fcm: FCMTarget? = nil, dataKeys: DataKeyNames = DataKeyNames(),
                webLink: WebLinkTemplate? = nil, sendsWebPush: Bool = false) {
        fields = Fields(name: name, apns: apns, fcm: fcm, dataKeys: dataKeys, webLink: webLink, sendsWebPush: sendsWebPush)
    }
}

/// The APNs side of an app: topic (bundle id) and origin.
public struct APNsTarget: Sendable {
    public var topic: String {
        didSet { quotedTopic = ByteWriter.quoted(topic) }
    }
    /// `https://api.push.apple.com`, the sandbox, or a simulator; no trailing slash.
    public var baseURL: String {
        didSet { escapedBaseURL = ByteWriter.escaped(baseURL) }
    }
    /// `topic` as a quoted JSON string and `baseURL` JSON-escaped, made when
    /// set: the `/v1/render` answer copies them for every device instead of
    /// escaping them again.
    private(set) var quotedTopic: [UInt8]
    private(set) var escapedBaseURL: [UInt8]

    public static let production = "https://api.push.apple.com"
    public static let sandbox = "https://api.sandbox.push.apple.com"

    public init(topic: String, baseURL: String = APNsTarget.production) {
        self.topic = topic
        self.baseURL = RenderConfig.trimmingSlash(baseURL)
        quotedTopic = ByteWriter.quoted(topic)
        escapedBaseURL = ByteWriter.escaped(self.baseURL)
    }
}

/// The FCM side of an app: project and origin.
public struct FCMTarget: Sendable {
    public var projectID: String {
        didSet {
            sendPath = FCMTarget.sendPath(projectID: projectID)
            escapedSendPath = ByteWriter.escaped(sendPath)
        }
    }
    public var baseURL: String {
        didSet { escapedBaseURL = ByteWriter.escaped(baseURL) }
    }
    /// The path of `sendURL`, made when the project is set rather than per event.
    public private(set) var sendPath: String
    /// `baseURL` and `sendPath` JSON-escaped, made when set (see `APNsTarget`).
    private(set) var escapedBaseURL: [UInt8]
    private(set) var escapedSendPath: [UInt8]

    public static let production = "https://fcm.googleapis.com"

    public init(projectID: String, baseURL: String = FCMTarget.production) {
        self.projectID = projectID
        self.baseURL = RenderConfig.trimmingSlash(baseURL)
        sendPath = FCMTarget.sendPath(projectID: projectID)
        escapedBaseURL = ByteWriter.escaped(self.baseURL)
        escapedSendPath = ByteWriter.escaped(sendPath)
    }

    /// `POST` target of one message.
    public var sendURL: String { "\(baseURL)/v1/projects/\(projectID)/messages:send" }

    private static func sendPath(projectID: String) -> String { "/v1/projects/\(projectID)/messages:send" }
}

/// A configuration value that cannot be used, with the setting's name and
/// what to write instead.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public let setting: String
    public let message: String

    public init(setting: String, _ message: String) {
        self.setting = setting
        self.message = message
    }

    public var description: String { "configuration \(setting): \(message)" }
}

extension RenderConfig {
    static func trimmingSlash(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

extension RenderConfig {
    /// The configuration used when none is given: one app, `demo`, with an
    /// APNs topic and an FCM project, production origins, default data keys.
    /// The pure `pushgw render` and the golden fixtures without a config use it.
    public static func demo() -> RenderConfig {
        let app = AppProfile(name: "demo", apns: APNsTarget(topic: "com.example.pushgw"),
                             fcm: FCMTarget(projectID: "pushgw-demo"))
        // One app with a unique name: the initializer cannot throw here.
        return try! RenderConfig(apps: [app])
    }
}
