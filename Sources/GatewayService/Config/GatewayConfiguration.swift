public import PayloadBuilder

/// Everything the service needs, loaded and checked at start-up from the
/// environment and an optional JSON file (see `SettingCatalog`). A
/// `Sendable` value; secrets are held as file paths until the clients load
/// them, and never printed.
public struct GatewayConfiguration: Sendable {
    public var listenAddress = "127.0.0.1"
    public var listenPort = 8080
    public var bearerTokens: [String] = []
    public var metricsToken: String?
    public var insecureNoAuth = false
    public var dedupWindow: Duration = .seconds(600)
    /// Most events remembered at once (memory bound of the dedup window).
    public var dedupCapacity = 20_000
    public var requestDeadline: Duration = .seconds(30)
    public var logLevel: Logger.Level = .info
    public var defaultLocale = "en"
    public var selfSenderIDs: Set<String> = []
    public var apps: [AppSettings] = []
    public var avatar = AvatarSettings()

    public init() {}

    /// One app: what it renders as, and the credentials to send with.
    public struct AppSettings: Sendable {
        public var name: String
        public var apns: APNsSettings?
        public var fcm: FCMSettings?
        public var dataKeys = DataKeyNames()

        public init(name: String) {
            self.name = name
        }
    }

    /// Provider connections per app when the setting is not given: one per
    /// core, as there is one event loop per core and a loop with a connection
    /// of its own sends without handing an event to another thread; at least
    /// 2 (one connection lost leaves one), at most 64 (the setting's bound).
    public static var defaultConnections: Int { min(64, max(2, HTTPServerLimits().threads)) }

    /// Direct APNs for one app.
    public struct APNsSettings: Sendable {
        public var keyFile: String
        public var keyID: String
        public var teamID: String
        public var topic: String
        public var baseURL: String
        public var caFile: String?
        public var connections = GatewayConfiguration.defaultConnections
        /// The setting that named `keyFile` (`PUSHGW_APNS_KEY_FILE` or
        /// `apps.<name>.apns.key_file`), for errors about the key's contents.
        public var keyFileSetting: String?
    }

    /// FCM HTTP v1 for one app.
    public struct FCMSettings: Sendable {
        public var serviceAccountFile: String
        public var projectID: String
        public var baseURL: String
        public var caFile: String?
        public var connections = GatewayConfiguration.defaultConnections
        /// The setting that named `serviceAccountFile`, for errors about its contents.
        public var serviceAccountFileSetting: String?
    }

    /// Avatar fetching rules (the rest are the resolver's safe defaults).
    public struct AvatarSettings: Sendable {
        public var allowHTTP = false
        public var allowedHosts: [String] = []
        public var allowPrivateAddresses = false
    }

    /// No app has provider credentials: run against the built-in simulators.
    public var needsDemoProviders: Bool { apps.allSatisfy { $0.apns == nil && $0.fcm == nil } }

    /// The rendering view of this configuration.
    public func renderConfig() throws(ServiceError) -> RenderConfig {
        let profiles = apps.map { app in
            AppProfile(name: app.name,
                       apns: app.apns.map { APNsTarget(topic: $0.topic, baseURL: $0.baseURL) },
                       fcm: app.fcm.map { FCMTarget(projectID: $0.projectID, baseURL: $0.baseURL) },
                       dataKeys: app.dataKeys)
        }
        do {
            return try RenderConfig(apps: profiles, defaultLocale: defaultLocale, selfSenderIDs: selfSenderIDs)
        } catch {
            throw ServiceError(setting: error.setting, error.message)
        }
    }

    /// True when `listenAddress` is loopback (127.0.0.0/8 or ::1).
    public var listensOnLoopback: Bool {
        listenAddress.hasPrefix("127.") || listenAddress == "::1" || listenAddress == "localhost"
    }
}
