import RedisClient
import PayloadBuilder

/// The JSON configuration file, read into settings with their file keys.
/// Paths in it (`*_file`) are relative to the file's folder. Unknown keys
/// are refused by name (the keys are `ConfigFileKeys`, shared with
/// `RenderConfig(json:)`).
struct FileSettings {
    /// The file's apps, before the environment is laid over them.
    var apps: [AppDraft] = []
    /// True when the file has an `apps` key (even an empty list).
    var appsListed = false
    var bearerTokensFile: Sourced?
    var metricsTokenFile: Sourced?
    /// `proxy.url` and `proxy.no_proxy`, resolved with the environment's by the loader.
    var proxyURL: String?
    var noProxy: String?
    private var document: JSONValue = .object([])
    private var folder = ""

    init() {}

    init(_ bytes: [UInt8], path: String, setting: String) throws(ServiceError) {
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ServiceError(setting: setting, "\(path) is not valid JSON: \(error.message)")
        }
        if let slash = path.lastIndex(of: "/") { folder = String(path[...slash]) }
        let root = try FileObject(document, setting: "", allowed: ConfigFileKeys.root)
        bearerTokensFile = try filePath(root, "bearer_tokens_file")
        metricsTokenFile = try filePath(root, "metrics_token_file")
        if let proxyValue = root.value("proxy") {
            let proxy = try FileObject(proxyValue, setting: "proxy", allowed: ConfigFileKeys.proxy)
            proxyURL = try proxy.string("url")
            noProxy = try proxy.string("no_proxy")
        }
        if let appsValue = root.value("apps") {
            appsListed = true
            guard case let .array(items) = appsValue else { throw ServiceError(setting: "apps", "must be a list of apps") }
            for (index, item) in items.enumerated() {
                apps.append(try app(item, label: "apps[\(index)]"))
            }
        }
    }

    /// The file's service-wide settings (the environment is applied after).
    func apply(to configuration: inout GatewayConfiguration, loader: ConfigurationLoader) throws(ServiceError) {
        let root = try FileObject(document, setting: "", allowed: ConfigFileKeys.root)
        if let listen = try root.string("listen") { try ConfigurationLoader.setListen(listen, setting: "listen", on: &configuration) }
        if let flag = try root.bool("insecure_no_auth") {
            configuration.insecureNoAuth = flag
            configuration.insecureNoAuthSetting = "insecure_no_auth"
        }
        for setting in WholeNumberSetting.all where setting.object == nil {
            if let number = try root.integer(setting.fileKey, setting.range) { setting.apply(&configuration, number) }
        }
        if let locale = try root.string("default_locale") {
            configuration.defaultLocale = try ConfigurationLoader.locale(locale, "default_locale")
        }
        if let senders = try root.strings("self_sender_ids") { configuration.selfSenderIDs = Set(senders) }
        if let level = try root.string("log_level") { configuration.logLevel = try ConfigurationLoader.logLevel(level, "log_level") }
        if let avatarValue = root.value("avatar") {
            let avatar = try FileObject(avatarValue, setting: "avatar", allowed: ConfigFileKeys.avatar)
            if let flag = try avatar.bool("allow_http") { configuration.avatar.allowHTTP = flag }
            if let hosts = try avatar.strings("allowed_hosts") {
                configuration.avatar.allowedHosts = try ConfigurationLoader.avatarHosts(hosts, "avatar.allowed_hosts")
            }
            if let flag = try avatar.bool("allow_private_addresses") { configuration.avatar.allowPrivateAddresses = flag }
            if let networks = try avatar.strings("private_networks") {
                configuration.avatar.privateNetworks = try ConfigurationLoader.avatarNetworks(networks, "avatar.private_networks")
            }
            if let caFile = try filePath(avatar, "ca_file") { configuration.avatar.caFileSetting = caFile }
            for setting in WholeNumberSetting.all where setting.object == "avatar" {
                if let number = try avatar.integer(setting.keyInObject, setting.range) { setting.apply(&configuration, number) }
            }
        }
        if let redisValue = root.value("redis") { try applyRedis(redisValue, to: &configuration) }
    }

    /// The `redis` object: the shared store (checked as a whole once the environment is laid over it).
    private func applyRedis(_ value: JSONValue, to configuration: inout GatewayConfiguration) throws(ServiceError) {
        let redis = try FileObject(value, setting: "redis", allowed: ConfigFileKeys.redis)
        if let url = try redis.string("url") {
            configuration.redis.url = try RedisURL(url, setting: "redis.url")
            configuration.redis.urlSetting = "redis.url"
        }
        if let caFile = try filePath(redis, "ca_file") {
            configuration.redis.caFileSetting = caFile
            configuration.redis.otherSettingsGiven.append("redis.ca_file")
        }
        if let prefix = try redis.string("prefix") {
            configuration.redis.prefix = try RedisSettings.checkedPrefix(prefix, "redis.prefix")
            configuration.redis.otherSettingsGiven.append("redis.prefix")
        }
        if let policy = try redis.string("on_failure") {
            configuration.redis.onFailure = try RedisSettings.failurePolicy(policy, "redis.on_failure")
            configuration.redis.otherSettingsGiven.append("redis.on_failure")
        }
        for setting in WholeNumberSetting.all where setting.object == "redis" {
            if let number = try redis.integer(setting.keyInObject, setting.range) {
                setting.apply(&configuration, number)
                configuration.redis.otherSettingsGiven.append(setting.fileKey)
                if setting.fileKey == "redis.command_timeout_ms" { configuration.redis.commandTimeoutSetting = setting.fileKey }
            }
        }
    }

    private func app(_ value: JSONValue, label: String) throws(ServiceError) -> AppDraft {
        let object = try FileObject(value, setting: label, allowed: ConfigFileKeys.app)
        guard let name = try object.string("name"), !name.isEmpty else {
            throw ServiceError(setting: "\(label).name", "required: a non-empty app name")
        }
        var app = AppDraft(name: name, label: label, fromFile: true)
        if let apnsValue = object.value("apns") {
            let apns = try FileObject(apnsValue, setting: "\(label).apns", allowed: ConfigFileKeys.apns)
            app.apns = AppDraft.APNs(
                keyFile: try filePath(apns, "key_file"), keyID: try text(apns, "key_id"), teamID: try text(apns, "team_id"),
                topic: try text(apns, "topic"), environment: try text(apns, "environment"), baseURL: try text(apns, "base_url"),
                caFile: try filePath(apns, "ca_file"), connections: try whole(apns, "connections"),
                tokenRefreshMinutes: try whole(apns, "token_refresh_minutes"))
        }
        if let fcmValue = object.value("fcm") {
            let fcm = try FileObject(fcmValue, setting: "\(label).fcm", allowed: ConfigFileKeys.fcm)
            app.fcm = AppDraft.FCM(
                serviceAccountFile: try filePath(fcm, "service_account_file"), projectID: try text(fcm, "project_id"),
                baseURL: try text(fcm, "base_url"), caFile: try filePath(fcm, "ca_file"), connections: try whole(fcm, "connections"))
        }
        if let webValue = object.value("web") {
            let web = try FileObject(webValue, setting: "\(label).web", allowed: ConfigFileKeys.web)
            app.webLinkTemplate = try text(web, "link_template")
        }
        if let webPushValue = object.value("webpush") {
            let webPush = try FileObject(webPushValue, setting: "\(label).webpush", allowed: ConfigFileKeys.webpush)
            let hosts = try webPush.strings("allowed_hosts")
            let flag = try webPush.bool("allow_private_addresses")
            app.webPush = AppDraft.WebPush(
                vapidKeyFile: try filePath(webPush, "vapid_key_file"), vapidSubject: try text(webPush, "vapid_subject"),
                allowedHosts: hosts.map { Sourced(value: $0.joined(separator: ","), setting: webPush.name("allowed_hosts")) },
                caFile: try filePath(webPush, "ca_file"),
                allowPrivateAddresses: flag.map { Sourced(value: $0 ? "true" : "false", setting: webPush.name("allow_private_addresses")) },
                connections: try whole(webPush, "connections"))
        }
        if let keys = object.value("data_keys") { app.dataKeys = (keys, "\(label).data_keys") }
        app.feedbackURL = try text(object, "feedback_url")
        app.feedbackSecretFile = try filePath(object, "feedback_secret_file")
        return app
    }

    private func text(_ object: FileObject, _ key: String) throws(ServiceError) -> Sourced? {
        try object.string(key).map { Sourced(value: $0, setting: object.name(key)) }
    }

    /// A whole number, kept as text: the loader checks its range as for the environment.
    private func whole(_ object: FileObject, _ key: String) throws(ServiceError) -> Sourced? {
        guard let value = object.value(key) else { return nil }
        guard case let .int(number) = value else { throw ServiceError(setting: object.name(key), "must be a whole number") }
        return Sourced(value: String(number), setting: object.name(key))
    }

    /// A path, resolved against the file's folder when relative.
    private func filePath(_ object: FileObject, _ key: String) throws(ServiceError) -> Sourced? {
        guard let value = try object.string(key) else { return nil }
        let shown = ConfigurationLoader.isShowable(value)
        guard !value.hasPrefix("/"), !value.hasPrefix("~/"), !folder.isEmpty else {
            return Sourced(value: value, setting: object.name(key), shown: shown)
        }
        return Sourced(value: folder + value, setting: object.name(key), shown: shown)
    }
}

/// Typed reads of one object of the configuration file; unknown keys are refused by name.
struct FileObject {
    let members: [(key: String, value: JSONValue)]
    let setting: String

    init(_ value: JSONValue, setting: String, allowed: Set<String>) throws(ServiceError) {
        guard case let .object(members) = value else {
            throw ServiceError(setting: setting.isEmpty ? "(file)" : setting, "must be a JSON object")
        }
        self.members = members
        self.setting = setting
        for member in members where !allowed.contains(member.key) {
            throw ServiceError(setting: name(member.key), "unknown setting (known here: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func name(_ key: String) -> String { setting.isEmpty ? key : "\(setting).\(key)" }

    func value(_ key: String) -> JSONValue? {
        guard let value = members.first(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(ServiceError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value else { throw ServiceError(setting: name(key), "must be a string") }
        return text
    }

    func bool(_ key: String) throws(ServiceError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case let .bool(flag) = value else { throw ServiceError(setting: name(key), "must be true or false") }
        return flag
    }

    func integer(_ key: String, _ range: ClosedRange<Int>) throws(ServiceError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case let .int(number) = value, range.contains(Int(number)) else {
            throw ServiceError(setting: name(key), "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    func strings(_ key: String) throws(ServiceError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case let .array(items) = value else { throw ServiceError(setting: name(key), "must be a list of strings") }
        var strings: [String] = []
        for item in items {
            guard case let .string(text) = item else { throw ServiceError(setting: name(key), "must be a list of strings") }
            strings.append(text)
        }
        return strings
    }
}
