import RedisClient
import Foundation
import PayloadBuilder

/// Builds a `GatewayConfiguration` from a JSON file and the environment,
/// with errors that name the setting as the user wrote it (the environment
/// variable, or the file key) and say what to write.
///
/// Precedence: an environment variable overrides the same key of the file.
/// For an app, that is field by field: `PUSHGW_APNS_KEY_FILE` replaces the
/// key file of the file's app and keeps the rest of it. With one app in the
/// file the environment's app settings apply to it; with several,
/// `PUSHGW_APP_NAME` says which one. `PUSHGW_BEARER_TOKENS` and
/// `PUSHGW_BEARER_TOKENS_FILE` replace the file's tokens. Relative paths in
/// the file are relative to the file's folder. An unknown `PUSHGW_*`
/// variable is refused, as an unknown file key is.
public struct ConfigurationLoader {
    /// What the configuration is loaded for.
    public enum Use: Sendable {
        /// The service: every file is read and checked.
        case service
        /// `pushgw render`, offline: the same settings are checked, but no
        /// secret is read (keys, CA files, token files); a service account is
        /// read only when `project_id` is not given.
        case offlineRender
    }

    public let environment: [String: String]
    /// Reads a file's bytes; injected so tests need no files.
    public let readFile: @Sendable (String) throws(FileReadError) -> [UInt8]

    public init(environment: [String: String],
                readFile: @escaping @Sendable (String) throws(FileReadError) -> [UInt8] = ConfigurationLoader.readFromDisk) {
        self.environment = environment
        self.readFile = readFile
    }

    /// Reads a file from disk (`FileReader`).
    public static let readFromDisk: @Sendable (String) throws(FileReadError) -> [UInt8] = { path throws(FileReadError) in
        try FileReader.read(path)
    }

    /// Loads and checks the configuration. `configFile` is `--config`'s
    /// value (else `PUSHGW_CONFIG_FILE` is used).
    public func load(configFile: String? = nil, use: Use = .service) throws(ServiceError) -> GatewayConfiguration {
        if let unknown = SettingCatalog.unknownVariable(in: environment) { throw unknown }
        var configuration = GatewayConfiguration()
        var file = FileSettings()
        let source = configFile.map { Sourced(value: $0, setting: "--config") }
            ?? value("PUSHGW_CONFIG_FILE").map { Sourced(value: $0, setting: "PUSHGW_CONFIG_FILE") }
        if let source {
            let bytes = try read(source)
            file = try FileSettings(bytes, path: source.value, setting: source.setting)
            try file.apply(to: &configuration, loader: self)
        }
        try applyEnvironment(to: &configuration)
        try applyProxy(file: file, to: &configuration)
        if let caFile = configuration.avatar.caFileSetting { try checkCAFile(caFile, use: use) }
        try checkRedis(&configuration.redis, requestDeadline: configuration.requestDeadline, use: use)
        if use == .service { try loadTokens(file: file, into: &configuration) }
        var apps = file.apps
        try overlayEnvironmentApp(on: &apps)
        if file.appsListed && apps.isEmpty {
            throw ServiceError(setting: "apps", "the list is empty: list at least one app with apns and/or fcm credentials "
                + "(leave `apps` out, on a loopback address, for the built-in demo)")
        }
        var names = Set<String>()
        for app in apps {
            guard names.insert(app.name).inserted else {
                throw ServiceError(setting: "\(app.label).name", "the app name \"\(app.name)\" is used twice")
            }
            configuration.apps.append(try settings(of: app, use: use))
        }
        return configuration
    }

    // MARK: environment

    func value(_ name: String) -> String? {
        guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    private func sourced(_ name: String) -> Sourced? {
        value(name).map { Sourced(value: $0, setting: name, shown: name.hasSuffix("_FILE") ? Self.isShowable($0) : true) }
    }

    private func applyEnvironment(to configuration: inout GatewayConfiguration) throws(ServiceError) {
        if let listen = value("PUSHGW_LISTEN") { try Self.setListen(listen, setting: "PUSHGW_LISTEN", on: &configuration) }
        if let flag = value("PUSHGW_INSECURE_NO_AUTH") {
            configuration.insecureNoAuth = try Self.bool(flag, "PUSHGW_INSECURE_NO_AUTH")
            configuration.insecureNoAuthSetting = "PUSHGW_INSECURE_NO_AUTH"
        }
        for setting in WholeNumberSetting.all {
            if let text = value(setting.environment) {
                setting.apply(&configuration, try Self.number(text, setting.environment, setting.range))
                if setting.object == "redis" { configuration.redis.otherSettingsGiven.append(setting.environment) }
                if setting.environment == "PUSHGW_REDIS_COMMAND_TIMEOUT_MS" {
                    configuration.redis.commandTimeoutSetting = setting.environment
                }
            }
        }
        if let url = value("PUSHGW_REDIS_URL") {
            configuration.redis.url = try RedisURL(url, setting: "PUSHGW_REDIS_URL")
            configuration.redis.urlSetting = "PUSHGW_REDIS_URL"
        }
        if let caFile = sourced("PUSHGW_REDIS_CA_FILE") {
            configuration.redis.caFileSetting = caFile
            configuration.redis.otherSettingsGiven.append("PUSHGW_REDIS_CA_FILE")
        }
        if let prefix = value("PUSHGW_REDIS_PREFIX") {
            configuration.redis.prefix = try RedisSettings.checkedPrefix(prefix, "PUSHGW_REDIS_PREFIX")
            configuration.redis.otherSettingsGiven.append("PUSHGW_REDIS_PREFIX")
        }
        if let policy = value("PUSHGW_REDIS_ON_FAILURE") {
            configuration.redis.onFailure = try RedisSettings.failurePolicy(policy, "PUSHGW_REDIS_ON_FAILURE")
            configuration.redis.otherSettingsGiven.append("PUSHGW_REDIS_ON_FAILURE")
        }
        if let level = value("PUSHGW_LOG_LEVEL") { configuration.logLevel = try Self.logLevel(level, "PUSHGW_LOG_LEVEL") }
        if let locale = value("PUSHGW_DEFAULT_LOCALE") {
            configuration.defaultLocale = try Self.locale(locale, "PUSHGW_DEFAULT_LOCALE")
        }
        if let senders = value("PUSHGW_SELF_SENDER_IDS") {
            configuration.selfSenderIDs = Set(senders.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if let flag = value("PUSHGW_AVATAR_ALLOW_HTTP") { configuration.avatar.allowHTTP = try Self.bool(flag, "PUSHGW_AVATAR_ALLOW_HTTP") }
        if let hosts = value("PUSHGW_AVATAR_ALLOWED_HOSTS") {
            configuration.avatar.allowedHosts = try Self.avatarHosts(
                hosts.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) },
                "PUSHGW_AVATAR_ALLOWED_HOSTS")
        }
        if let flag = value("PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES") {
            configuration.avatar.allowPrivateAddresses = try Self.bool(flag, "PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES")
        }
        if let networks = value("PUSHGW_AVATAR_PRIVATE_NETWORKS") {
            configuration.avatar.privateNetworks = try Self.avatarNetworks(
                networks.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) },
                "PUSHGW_AVATAR_PRIVATE_NETWORKS")
        }
        if let caFile = sourced("PUSHGW_AVATAR_CA_FILE") { configuration.avatar.caFileSetting = caFile }
    }

    /// API and metrics tokens: the environment's replace the file's (the
    /// file's token file is then not read).
    private func loadTokens(file: FileSettings, into configuration: inout GatewayConfiguration) throws(ServiceError) {
        var fromEnvironment: [String] = []
        var settings: [String] = []
        if let file = sourced("PUSHGW_BEARER_TOKENS_FILE") {
            fromEnvironment += try lines(ofSecretFile: file)
            settings.append(file.setting)
        }
        if let tokens = value("PUSHGW_BEARER_TOKENS") {
            let list = tokens.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            fromEnvironment += try Self.checked(tokens: list, setting: "PUSHGW_BEARER_TOKENS", source: "the list", fromFile: false)
            settings.append("PUSHGW_BEARER_TOKENS")
        }
        if !settings.isEmpty {
            configuration.bearerTokens = fromEnvironment
            configuration.bearerTokensSetting = settings.joined(separator: " and ")
        } else if let tokensFile = file.bearerTokensFile {
            configuration.bearerTokens = try lines(ofSecretFile: tokensFile)
            configuration.bearerTokensSetting = tokensFile.setting
        }
        if let metrics = sourced("PUSHGW_METRICS_TOKEN_FILE") ?? file.metricsTokenFile {
            configuration.metricsToken = try lines(ofSecretFile: metrics).first
            configuration.metricsTokenSetting = metrics.setting
        }
    }

    /// `PUSHGW_APNS_*`, `PUSHGW_FCM_*`, `PUSHGW_WEBPUSH_*`, `PUSHGW_WEB_LINK_TEMPLATE`,
    /// `PUSHGW_DATA_KEYS` and `PUSHGW_APP_NAME`, laid over the file's app field by field, or
    /// describing the one app when the file has none.
    private func overlayEnvironmentApp(on apps: inout [AppDraft]) throws(ServiceError) {
        let names = environment.keys.filter {
            ($0.hasPrefix("PUSHGW_APNS_") || $0.hasPrefix("PUSHGW_FCM_") || $0.hasPrefix("PUSHGW_WEBPUSH_") || $0 == "PUSHGW_WEB_LINK_TEMPLATE"
                || $0 == "PUSHGW_DATA_KEYS" || $0 == "PUSHGW_APP_NAME")
                && value($0) != nil
        }
        guard !names.isEmpty else { return }
        let appName = value("PUSHGW_APP_NAME")
        let index: Int
        if apps.isEmpty {
            let name = appName ?? "default"
            apps.append(AppDraft(name: name, label: "app \(name)", fromFile: false))
            index = 0
        } else if let appName {
            guard let found = apps.firstIndex(where: { $0.name == appName }) else {
                throw ServiceError(setting: "PUSHGW_APP_NAME", "\"\(appName)\" names no app of the configuration file (its apps: "
                    + "\(apps.map(\.name).joined(separator: ", "))); the environment's app settings change one of the file's apps "
                    + "(add new apps in the file)")
            }
            index = found
        } else if apps.count == 1 {
            index = 0
        } else {
            throw ServiceError(setting: "PUSHGW_APP_NAME", "the configuration file lists \(apps.count) apps "
                + "(\(apps.map(\.name).joined(separator: ", "))): set PUSHGW_APP_NAME to the one that "
                + "\(names.filter { $0 != "PUSHGW_APP_NAME" }.sorted().joined(separator: ", ")) apply to")
        }
        var app = apps[index]
        let apnsFields: [(String, WritableKeyPath<AppDraft.APNs, Sourced?>)] = [
            ("KEY_FILE", \.keyFile), ("KEY_ID", \.keyID), ("TEAM_ID", \.teamID), ("TOPIC", \.topic), ("ENVIRONMENT", \.environment),
            ("BASE_URL", \.baseURL), ("CA_FILE", \.caFile), ("CONNECTIONS", \.connections), ("TOKEN_REFRESH_MINUTES", \.tokenRefreshMinutes),
        ]
        for (suffix, field) in apnsFields {
            guard let setting = sourced("PUSHGW_APNS_" + suffix) else { continue }
            if app.apns == nil { app.apns = AppDraft.APNs() }
            app.apns![keyPath: field] = setting
        }
        // The environment and the base URL are two spellings of one setting,
        // the APNs origin: the environment's spelling replaces the file's,
        // whichever it was (a file base_url must not outlive
        // PUSHGW_APNS_ENVIRONMENT=sandbox).
        let environmentOrigin = (sourced("PUSHGW_APNS_ENVIRONMENT") != nil, sourced("PUSHGW_APNS_BASE_URL") != nil)
        if environmentOrigin == (true, false) { app.apns?.baseURL = nil }
        if environmentOrigin == (false, true) { app.apns?.environment = nil }
        let fcmFields: [(String, WritableKeyPath<AppDraft.FCM, Sourced?>)] = [
            ("SERVICE_ACCOUNT_FILE", \.serviceAccountFile), ("PROJECT_ID", \.projectID), ("BASE_URL", \.baseURL),
            ("CA_FILE", \.caFile), ("CONNECTIONS", \.connections),
        ]
        for (suffix, field) in fcmFields {
            guard let setting = sourced("PUSHGW_FCM_" + suffix) else { continue }
            if app.fcm == nil { app.fcm = AppDraft.FCM() }
            app.fcm![keyPath: field] = setting
        }
        let webPushFields: [(String, WritableKeyPath<AppDraft.WebPush, Sourced?>)] = [
            ("VAPID_KEY_FILE", \.vapidKeyFile), ("VAPID_SUBJECT", \.vapidSubject), ("ALLOWED_HOSTS", \.allowedHosts),
            ("CA_FILE", \.caFile), ("ALLOW_PRIVATE_ADDRESSES", \.allowPrivateAddresses), ("CONNECTIONS", \.connections),
        ]
        for (suffix, field) in webPushFields {
            guard let setting = sourced("PUSHGW_WEBPUSH_" + suffix) else { continue }
            if app.webPush == nil { app.webPush = AppDraft.WebPush() }
            app.webPush![keyPath: field] = setting
        }
        if let template = sourced("PUSHGW_WEB_LINK_TEMPLATE") { app.webLinkTemplate = template }
        if let keys = value("PUSHGW_DATA_KEYS") {
            do {
                app.dataKeys = (try JSONParser.parse(Array(keys.utf8)), "PUSHGW_DATA_KEYS")
            } catch {
                throw ServiceError(setting: "PUSHGW_DATA_KEYS", "not valid JSON: \(error.message)")
            }
        }
        apps[index] = app
    }

    /// The `redis` settings as a whole: none without a URL (a prefix or a
    /// policy alone would be silently ignored), a CA file only for TLS, a
    /// command timeout below the request deadline.
    private func checkRedis(_ redis: inout RedisSettings, requestDeadline: Duration, use: Use) throws(ServiceError) {
        guard let url = redis.url else {
            if let given = redis.otherSettingsGiven.first {
                throw ServiceError(setting: given, "has no effect without PUSHGW_REDIS_URL (redis.url), the shared store: "
                    + "set the URL, or leave the redis settings out to run as one process")
            }
            return
        }
        if let caFile = redis.caFileSetting {
            guard url.usesTLS else {
                throw ServiceError(setting: caFile.setting, "a CA file is for a TLS store, and \(redis.urlSetting) is a "
                    + "redis:// URL (\(url.redacted)): use rediss://, or leave the CA file out")
            }
            try checkCAFile(caFile, use: use)
            redis.caFile = caFile.value
        }
        guard redis.commandTimeout < requestDeadline else {
            throw ServiceError(setting: redis.commandTimeoutSetting, "must be shorter than the request deadline "
                + "(\(requestDeadline.components.seconds) s): a store that does not answer must not hold a notification past it")
        }
    }

    // MARK: files

    /// The bytes of the file a setting names, or an error naming the
    /// setting and saying why (no such file, permission denied, …).
    func read(_ file: Sourced) throws(ServiceError) -> [UInt8] {
        do {
            return try readFile(file.value)
        } catch {
            throw ServiceError(setting: file.setting, Self.cannotRead(file.value, error, shown: file.shown))
        }
    }

    func lines(ofSecretFile file: Sourced) throws(ServiceError) -> [String] {
        let lines = String(decoding: try read(file), as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return try Self.checked(tokens: lines, setting: file.setting, source: file.shown ? file.value : "the file", fromFile: true)
    }
}
