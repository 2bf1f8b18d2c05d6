import GatewayHTTP
public import WebPushClient
public import PayloadBuilder
public import NetworkSockets
import Glibc

/// Everything the service needs, loaded and checked at start-up from the
/// environment and an optional JSON file (see `SettingCatalog`). A
/// `Sendable` value; secrets are held as file paths until the clients load
/// them, and never printed.
public struct GatewayConfiguration: Sendable {
    public var listenAddress = "127.0.0.1"
    public var listenPort = 8080
    /// The setting that gave the listen address, for errors (`PUSHGW_LISTEN` or `listen`).
    public var listenSetting = "PUSHGW_LISTEN"
    public var bearerTokens: [String] = []
    /// The setting the bearer tokens came from (`PUSHGW_BEARER_TOKENS_FILE`,
    /// `PUSHGW_BEARER_TOKENS` or `bearer_tokens_file`), nil when none did.
    public var bearerTokensSetting: String?
    public var metricsToken: String?
    /// The setting `metricsToken` came from (for messages; never the token).
    public var metricsTokenSetting: String?
    public var insecureNoAuth = false
    /// The setting or flag that asked for `insecureNoAuth`, for errors.
    public var insecureNoAuthSetting = "PUSHGW_INSECURE_NO_AUTH"
    public var dedupWindow: Duration = .seconds(600)
    /// Most events remembered at once (memory bound of the dedup window).
    public var dedupCapacity = 20_000
    /// Most memory the dedup window's records take, in MiB.
    public var dedupMemoryMegabytes = 64
    public var requestDeadline: Duration = .seconds(30)
    /// After SIGTERM, how long the gateway goes on serving with `/readyz`
    /// answering 503, before it stops taking connections: the time a load
    /// balancer takes to stop routing here (0: stop taking them at once).
    public var shutdownDelay: Duration = .zero
    /// Then, how long the notifications already taken may take to finish.
    public var shutdownDrain: Duration = .seconds(10)
    /// Client connections the HTTP server holds at most, and at most per
    /// client address (0: no per-address limit).
    public var maxConnections = 1024
    public var maxConnectionsPerAddress = 0
    public var logLevel: Logger.Level = .info
    public var defaultLocale = "en"
    public var selfSenderIDs: Set<String> = []
    public var apps: [AppSettings] = []
    public var avatar = AvatarSettings()
    /// The shared store of a fleet; no URL: one process, in-process dedup.
    public var redis = RedisSettings()
    /// Where provider connections (APNs, FCM), the OAuth token exchange and
    /// avatar downloads go: directly, or through an HTTP proxy's `CONNECT`
    /// tunnel, except for the `NO_PROXY` hosts. Redis and the feedback
    /// webhooks are always reached directly.
    public var proxy: ProxyRoute = .direct
    /// The setting that named the proxy (or `none`), if any.
    public var proxySetting: String?
    /// The `NO_PROXY` list as given, for the start-up log.
    public var noProxyText: String?

    public init() {}

    /// One app: what it renders as, and the credentials to send with.
    public struct AppSettings: Sendable {
        public var name: String
        public var apns: APNsSettings?
        public var fcm: FCMSettings?
        /// Direct web push; nil: `webpush` subscriptions are skipped (`platform_not_configured`).
        public var webPush: WebPushSettings?
        public var dataKeys = DataKeyNames()
        /// The page a browser notification opens; nil: none.
        public var webLink: WebLinkTemplate?
        /// The async mode's feedback webhook; nil: none.
        public var feedback: FeedbackSettings?

        public init(name: String) {
            self.name = name
        }
    }

    /// Where an app's feedback goes (`FeedbackWebhooks`), and the secret it is signed with.
    public struct FeedbackSettings: Sendable {
        public var url: String
        public var secret: [UInt8]

        public init(url: String, secret: [UInt8]) {
            self.url = url
            self.secret = secret
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
        /// How old a provider token may get before it is replaced: 20 to 50
        /// minutes (Apple's rules); 40 by default.
        public var tokenRefreshAge: Duration = APNsSettings.defaultTokenRefreshAge
        /// 40 minutes, as `ProviderTokenCache.defaultRefreshAge`.
        public static let defaultTokenRefreshAge: Duration = .seconds(40 * 60)
        /// The setting that named `keyFile` (`PUSHGW_APNS_KEY_FILE` or
        /// `apps[0].apns.key_file`), for errors about the key's contents.
        public var keyFileSetting: String?
        /// The settings that gave `baseURL`, `caFile` and `tokenRefreshAge`,
        /// for errors (nil: the default, named after the app).
        public var baseURLSetting: String?
        public var caFileSetting: String?
        public var tokenRefreshSetting: String?

        public init(keyFile: String, keyID: String, teamID: String, topic: String, baseURL: String, caFile: String? = nil,
                    connections: Int = GatewayConfiguration.defaultConnections) {
            self.keyFile = keyFile
            self.keyID = keyID
            self.teamID = teamID
            self.topic = topic
            self.baseURL = baseURL
            self.caFile = caFile
            self.connections = connections
        }
    }

    /// Direct web push for one app (RFC 8030, 8291, 8292).
    public struct WebPushSettings: Sendable {
        /// The VAPID private key: PEM or the raw base64url form (`pushgw vapid-keys`).
        public var vapidKeyFile: String
        /// The contact push services see in the JWT's `sub`: `mailto:` or `https:`.
        public var vapidSubject: String
        /// The push service hosts endpoints may name (`*.suffix` allowed).
        public var allowedHosts = WebPushEndpointPolicy.defaultAllowedHosts
        /// A PEM file of CAs to trust for push services instead of the system's.
        public var caFile: String?
        /// Whether endpoints may resolve to private and loopback addresses
        /// (a test's loopback simulator; never in production). Cloud
        /// metadata addresses stay refused.
        public var allowPrivateAddresses = false
        /// HTTP/2 connections per push service origin.
        public var connections = 1
        /// The settings that gave the key file and the subject, for errors.
        public var vapidKeyFileSetting = "PUSHGW_WEBPUSH_VAPID_KEY_FILE"
        public var vapidSubjectSetting = "PUSHGW_WEBPUSH_VAPID_SUBJECT"

        public init(vapidKeyFile: String, vapidSubject: String) {
            self.vapidKeyFile = vapidKeyFile
            self.vapidSubject = vapidSubject
        }
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
        /// The settings that gave `baseURL` and `caFile`, for errors.
        public var baseURLSetting: String?
        public var caFileSetting: String?

        public init(serviceAccountFile: String, projectID: String, baseURL: String, caFile: String? = nil,
                    connections: Int = GatewayConfiguration.defaultConnections) {
            self.serviceAccountFile = serviceAccountFile
            self.projectID = projectID
            self.baseURL = baseURL
            self.caFile = caFile
            self.connections = connections
        }
    }

    /// Avatar fetching rules; what is not set keeps `AvatarPolicy`'s safe default.
    public struct AvatarSettings: Sendable {
        public var allowHTTP = false
        public var allowedHosts: [String] = []
        public var allowPrivateAddresses = false
        /// Private networks avatars may come from all the same (an internal CDN).
        public var privateNetworks: [AvatarAddressRange] = []
        public var maxKilobytes = AvatarPolicy.defaults.maxBytes >> 10
        public var timeout = AvatarPolicy.defaults.totalTimeout
        public var cacheEntries = AvatarPolicy.defaults.cacheCapacity
        public var cacheTTL = AvatarPolicy.defaults.cacheTTL
        public var fetchThreads = AvatarPolicy.defaults.maxConcurrentFetches
        /// CAs to trust for avatar downloads instead of the system's.
        public var caFile: String? { caFileSetting?.value }
        /// The path and the setting that named it (for errors about the file).
        var caFileSetting: Sourced?

        /// The resolver's rules from these settings.
        public var policy: AvatarPolicy {
            var policy = AvatarPolicy()
            policy.allowHTTP = allowHTTP
            policy.allowedHosts = allowedHosts.isEmpty ? nil : allowedHosts
            policy.allowPrivateAddresses = allowPrivateAddresses
            policy.privateAddressExceptions = privateNetworks
            policy.maxBytes = maxKilobytes << 10
            policy.totalTimeout = timeout
            policy.connectTimeout = min(policy.connectTimeout, timeout)
            policy.cacheCapacity = cacheEntries
            policy.cacheTTL = cacheTTL
            policy.negativeCacheTTL = min(policy.negativeCacheTTL, cacheTTL)
            policy.maxConcurrentFetches = fetchThreads
            policy.caBundlePath = caFile
            return policy
        }
    }

    /// The rendering view of this configuration.
    public func renderConfig() throws(ServiceError) -> RenderConfig {
        let profiles = apps.map { app in
            AppProfile(name: app.name,
                       apns: app.apns.map { APNsTarget(topic: $0.topic, baseURL: $0.baseURL) },
                       fcm: app.fcm.map { FCMTarget(projectID: $0.projectID, baseURL: $0.baseURL) },
                       dataKeys: app.dataKeys, webLink: app.webLink, sendsWebPush: app.webPush != nil)
        }
        do {
            return try RenderConfig(apps: profiles, defaultLocale: defaultLocale, selfSenderIDs: selfSenderIDs)
        } catch {
            throw ServiceError(setting: error.setting, error.message)
        }
    }

    /// True when `listenAddress` is loopback: 127.0.0.0/8, ::1 in any
    /// spelling, or 127.0.0.0/8 mapped into IPv6 (`::ffff:127.0.0.1`).
    /// Parsed, not compared as text, so that `0:0:0:0:0:0:0:1` counts too.
    public var listensOnLoopback: Bool {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, listenAddress, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, listenAddress, &ipv6) == 1 else { return false }
        let bytes = AvatarIPAddress.bytes(of: ipv6)
        let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        return loopback || mapped
    }

    /// `http://ADDRESS:PORT` of the API, with an IPv6 address in brackets
    /// (`http://[::1]:8080`), as a URL needs it.
    public static func httpURL(address: String, port: Int) -> String {
        address.contains(":") ? "http://[\(address)]:\(port)" : "http://\(address):\(port)"
    }
}
