import Foundation
import PayloadBuilder

/// Builds a `GatewayConfiguration` from a JSON file and the environment
/// (which wins), with errors that name the setting and say what to write.
public struct ConfigurationLoader {
    public let environment: [String: String]
    /// Reads a file's bytes; injected so tests need no files.
    public let readFile: (String) -> [UInt8]?

    public init(environment: [String: String], readFile: @escaping (String) -> [UInt8]? = ConfigurationLoader.readFromDisk) {
        self.environment = environment
        self.readFile = readFile
    }

    /// The message for a file setting whose file cannot be read. The value
    /// is shown only when it looks like a path (absolute, or starting with
    /// `./`, `../` or `~/`): a secret put in a `*_FILE` setting by mistake
    /// must not reach the log.
    static func cannotRead(_ value: String) -> String {
        let pathLike = ["/", "./", "../", "~/"].contains { value.hasPrefix($0) }
            && !value.contains(where: \.isNewline) && value.count <= 4096
        guard pathLike else {
            return "cannot read the file it names (the value is not shown: it is not an absolute or ./ path, and may be a secret "
                + "given instead of a file; give the path of a file that holds it)"
        }
        return "cannot read \(value)"
    }

    /// Reads a file from disk, or nil.
    public static let readFromDisk: @Sendable (String) -> [UInt8]? = { FileManager.default.contents(atPath: $0).map(Array.init) }

    public func load(configFile: String? = nil) throws(ServiceError) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        if let path = configFile ?? value("PUSHGW_CONFIG_FILE") {
            guard let bytes = readFile(path) else {
                throw ServiceError(setting: "PUSHGW_CONFIG_FILE", Self.cannotRead(path))
            }
            try applyFile(bytes, path: path, to: &configuration)
        }
        try applyEnvironment(to: &configuration)
        if configuration.apps.isEmpty { configuration.apps = [GatewayConfiguration.AppSettings(name: value("PUSHGW_APP_NAME") ?? "default")] }
        return configuration
    }

    // MARK: environment

    private func value(_ name: String) -> String? {
        guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    private func applyEnvironment(to configuration: inout GatewayConfiguration) throws(ServiceError) {
        if let listen = value("PUSHGW_LISTEN") { try setListen(listen, setting: "PUSHGW_LISTEN", on: &configuration) }
        if let tokens = value("PUSHGW_BEARER_TOKENS") {
            let list = tokens.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            configuration.bearerTokens += try checked(tokens: list, setting: "PUSHGW_BEARER_TOKENS", source: "the list")
        }
        if let file = value("PUSHGW_BEARER_TOKENS_FILE") {
            configuration.bearerTokens += try lines(ofSecretFile: file, setting: "PUSHGW_BEARER_TOKENS_FILE")
        }
        if let file = value("PUSHGW_METRICS_TOKEN_FILE") {
            configuration.metricsToken = try lines(ofSecretFile: file, setting: "PUSHGW_METRICS_TOKEN_FILE").first
        }
        if let flag = value("PUSHGW_INSECURE_NO_AUTH") { configuration.insecureNoAuth = try bool(flag, "PUSHGW_INSECURE_NO_AUTH") }
        if let seconds = value("PUSHGW_DEDUP_WINDOW_SECONDS") {
            configuration.dedupWindow = .seconds(try number(seconds, "PUSHGW_DEDUP_WINDOW_SECONDS", 0...86_400))
        }
        if let count = value("PUSHGW_DEDUP_CAPACITY") {
            configuration.dedupCapacity = try number(count, "PUSHGW_DEDUP_CAPACITY", 1...10_000_000)
        }
        if let seconds = value("PUSHGW_REQUEST_DEADLINE_SECONDS") {
            configuration.requestDeadline = .seconds(try number(seconds, "PUSHGW_REQUEST_DEADLINE_SECONDS", 1...600))
        }
        if let level = value("PUSHGW_LOG_LEVEL") { configuration.logLevel = try logLevel(level, "PUSHGW_LOG_LEVEL") }
        if let locale = value("PUSHGW_DEFAULT_LOCALE") { configuration.defaultLocale = locale }
        if let senders = value("PUSHGW_SELF_SENDER_IDS") {
            configuration.selfSenderIDs = Set(senders.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if let flag = value("PUSHGW_AVATAR_ALLOW_HTTP") { configuration.avatar.allowHTTP = try bool(flag, "PUSHGW_AVATAR_ALLOW_HTTP") }
        if let hosts = value("PUSHGW_AVATAR_ALLOWED_HOSTS") {
            configuration.avatar.allowedHosts = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let flag = value("PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES") {
            configuration.avatar.allowPrivateAddresses = try bool(flag, "PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES")
        }
        try applyEnvironmentApp(to: &configuration)
    }

    /// `PUSHGW_APNS_*` / `PUSHGW_FCM_*` describe one app (added, or replacing
    /// the file's app of the same name).
    private func applyEnvironmentApp(to configuration: inout GatewayConfiguration) throws(ServiceError) {
        let names = environment.keys.filter { $0.hasPrefix("PUSHGW_APNS_") || $0.hasPrefix("PUSHGW_FCM_") || $0 == "PUSHGW_DATA_KEYS" }
        guard names.contains(where: { value($0) != nil }) else { return }
        var app = GatewayConfiguration.AppSettings(name: value("PUSHGW_APP_NAME") ?? "default")
        if value("PUSHGW_APNS_KEY_FILE") != nil || value("PUSHGW_APNS_TOPIC") != nil {
            app.apns = try apnsSettings(
                keyFile: value("PUSHGW_APNS_KEY_FILE"), keyID: value("PUSHGW_APNS_KEY_ID"), teamID: value("PUSHGW_APNS_TEAM_ID"),
                topic: value("PUSHGW_APNS_TOPIC"), environmentName: value("PUSHGW_APNS_ENVIRONMENT"),
                baseURL: value("PUSHGW_APNS_BASE_URL"), caFile: value("PUSHGW_APNS_CA_FILE"),
                connections: value("PUSHGW_APNS_CONNECTIONS"), prefix: "PUSHGW_APNS_", separator: "_", upper: true)
        }
        if let file = value("PUSHGW_FCM_SERVICE_ACCOUNT_FILE") {
            app.fcm = try fcmSettings(serviceAccountFile: file, projectID: nil, baseURL: value("PUSHGW_FCM_BASE_URL"),
                                      caFile: value("PUSHGW_FCM_CA_FILE"), connections: value("PUSHGW_FCM_CONNECTIONS"),
                                      prefix: "PUSHGW_FCM_", upper: true)
        }
        if let keys = value("PUSHGW_DATA_KEYS") {
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(Array(keys.utf8))
            } catch {
                throw ServiceError(setting: "PUSHGW_DATA_KEYS", "not valid JSON: \(error.message)")
            }
            do {
                app.dataKeys = try DataKeyNames(json: parsed, setting: "PUSHGW_DATA_KEYS")
            } catch {
                throw ServiceError(setting: error.setting, error.message)
            }
        }
        configuration.apps.removeAll { $0.name == app.name }
        configuration.apps.append(app)
    }

    // MARK: file

    private func applyFile(_ bytes: [UInt8], path: String, to configuration: inout GatewayConfiguration) throws(ServiceError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ServiceError(setting: path, "not valid JSON: \(error.message)")
        }
        let root = try FileObject(document, setting: "", allowed: [
            "listen", "bearer_tokens_file", "metrics_token_file", "insecure_no_auth", "dedup_window_seconds",
            "request_deadline_seconds", "dedup_capacity", "default_locale", "self_sender_ids", "log_level", "avatar", "apps",
        ])
        if let listen = try root.string("listen") { try setListen(listen, setting: "listen", on: &configuration) }
        if let file = try root.string("bearer_tokens_file") {
            configuration.bearerTokens += try lines(ofSecretFile: file, setting: "bearer_tokens_file")
        }
        if let file = try root.string("metrics_token_file") {
            configuration.metricsToken = try lines(ofSecretFile: file, setting: "metrics_token_file").first
        }
        if let flag = try root.bool("insecure_no_auth") { configuration.insecureNoAuth = flag }
        if let seconds = try root.integer("dedup_window_seconds", 0...86_400) { configuration.dedupWindow = .seconds(seconds) }
        if let seconds = try root.integer("request_deadline_seconds", 1...600) { configuration.requestDeadline = .seconds(seconds) }
        if let count = try root.integer("dedup_capacity", 1...10_000_000) { configuration.dedupCapacity = count }
        if let locale = try root.string("default_locale") { configuration.defaultLocale = locale }
        if let senders = try root.strings("self_sender_ids") { configuration.selfSenderIDs = Set(senders) }
        if let level = try root.string("log_level") { configuration.logLevel = try logLevel(level, "log_level") }
        if let avatarValue = root.value("avatar") {
            let avatar = try FileObject(avatarValue, setting: "avatar", allowed: ["allow_http", "allowed_hosts", "allow_private_addresses"])
            if let flag = try avatar.bool("allow_http") { configuration.avatar.allowHTTP = flag }
            if let hosts = try avatar.strings("allowed_hosts") { configuration.avatar.allowedHosts = hosts }
            if let flag = try avatar.bool("allow_private_addresses") { configuration.avatar.allowPrivateAddresses = flag }
        }
        if let appsValue = root.value("apps") {
            guard case let .array(items) = appsValue else { throw ServiceError(setting: "apps", "must be a list of apps") }
            for (index, item) in items.enumerated() {
                configuration.apps.append(try fileApp(item, setting: "apps[\(index)]"))
            }
        }
    }

    private func fileApp(_ value: JSONValue, setting: String) throws(ServiceError) -> GatewayConfiguration.AppSettings {
        let object = try FileObject(value, setting: setting, allowed: ["name", "apns", "fcm", "data_keys"])
        guard let name = try object.string("name"), !name.isEmpty else {
            throw ServiceError(setting: "\(setting).name", "required: a non-empty app name")
        }
        var app = GatewayConfiguration.AppSettings(name: name)
        if let apnsValue = object.value("apns") {
            let apns = try FileObject(apnsValue, setting: "\(setting).apns", allowed: [
                "key_file", "key_id", "team_id", "topic", "environment", "base_url", "ca_file", "connections",
            ])
            app.apns = try apnsSettings(
                keyFile: try apns.string("key_file"), keyID: try apns.string("key_id"), teamID: try apns.string("team_id"),
                topic: try apns.string("topic"), environmentName: try apns.string("environment"),
                baseURL: try apns.string("base_url"), caFile: try apns.string("ca_file"),
                connections: try apns.integer("connections", 1...64).map(String.init), prefix: "\(setting).apns.", separator: "_",
                upper: false)
        }
        if let fcmValue = object.value("fcm") {
            let fcm = try FileObject(fcmValue, setting: "\(setting).fcm", allowed: [
                "service_account_file", "project_id", "base_url", "ca_file", "connections",
            ])
            guard let file = try fcm.string("service_account_file") else {
                throw ServiceError(setting: "\(setting).fcm.service_account_file", "required: the Firebase service-account JSON file")
            }
            app.fcm = try fcmSettings(serviceAccountFile: file, projectID: try fcm.string("project_id"),
                                      baseURL: try fcm.string("base_url"), caFile: try fcm.string("ca_file"),
                                      connections: try fcm.integer("connections", 1...64).map(String.init),
                                      prefix: "\(setting).fcm.", upper: false)
        }
        do {
            app.dataKeys = try DataKeyNames(json: object.value("data_keys"), setting: "\(setting).data_keys")
        } catch {
            throw ServiceError(setting: error.setting, error.message)
        }
        return app
    }

    // MARK: sections shared by file and environment

    private func apnsSettings(keyFile: String?, keyID: String?, teamID: String?, topic: String?, environmentName: String?,
                              baseURL: String?, caFile: String?, connections: String?, prefix: String, separator: String,
                              upper: Bool) throws(ServiceError) -> GatewayConfiguration.APNsSettings {
        func name(_ key: String) -> String { prefix + (upper ? key.uppercased() : key) }
        guard let keyFile else { throw ServiceError(setting: name("key_file"), "required: the APNs auth key (.p8) file") }
        guard readFile(keyFile) != nil else { throw ServiceError(setting: name("key_file"), Self.cannotRead(keyFile)) }
        for (field, text) in [("key_id", keyID), ("team_id", teamID)] {
            guard let text, text.count == 10, text.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw ServiceError(setting: name(field), "required: 10 characters A-Z and 0-9, as shown in Apple's developer account")
            }
        }
        guard let topic, !topic.isEmpty else { throw ServiceError(setting: name("topic"), "required: the app's bundle id") }
        let origin: String
        switch environmentName ?? "production" {
        case "production": origin = APNsTarget.production
        case "sandbox", "development": origin = APNsTarget.sandbox
        case let other: throw ServiceError(setting: name("environment"), "\"\(other)\": use production or sandbox")
        }
        if let baseURL, !baseURL.lowercased().hasPrefix("https://") {
            throw ServiceError(setting: name("base_url"), "must be an https:// origin")
        }
        if let caFile, readFile(caFile) == nil { throw ServiceError(setting: name("ca_file"), Self.cannotRead(caFile)) }
        var settings = GatewayConfiguration.APNsSettings(keyFile: keyFile, keyID: keyID!, teamID: teamID!, topic: topic,
                                                         baseURL: baseURL ?? origin, caFile: caFile)
        settings.keyFileSetting = name("key_file")
        if let connections { settings.connections = try number(connections, name("connections"), 1...64) }
        return settings
    }

    private func fcmSettings(serviceAccountFile: String, projectID: String?, baseURL: String?, caFile: String?,
                             connections: String?, prefix: String, upper: Bool) throws(ServiceError) -> GatewayConfiguration.FCMSettings {
        func name(_ key: String) -> String { prefix + (upper ? key.uppercased() : key) }
        guard let bytes = readFile(serviceAccountFile) else {
            throw ServiceError(setting: name("service_account_file"), Self.cannotRead(serviceAccountFile))
        }
        guard let document = try? JSONParser.parse(bytes) else {
            throw ServiceError(setting: name("service_account_file"),
                               "the file is not valid JSON: use the service-account key file downloaded from the Google Cloud console")
        }
        var project = projectID
        if project == nil, case let .string(found)? = document["project_id"] { project = found }
        guard let project, !project.isEmpty else {
            throw ServiceError(setting: name("service_account_file"), "the service-account JSON has no project_id")
        }
        if let baseURL, !baseURL.lowercased().hasPrefix("https://") {
            throw ServiceError(setting: name("base_url"), "must be an https:// origin")
        }
        if let caFile, readFile(caFile) == nil { throw ServiceError(setting: name("ca_file"), Self.cannotRead(caFile)) }
        var settings = GatewayConfiguration.FCMSettings(serviceAccountFile: serviceAccountFile, projectID: project,
                                                        baseURL: baseURL ?? FCMTarget.production, caFile: caFile)
        settings.serviceAccountFileSetting = name("service_account_file")
        if let connections { settings.connections = try number(connections, name("connections"), 1...64) }
        return settings
    }

    // MARK: values

    private func setListen(_ text: String, setting: String, on configuration: inout GatewayConfiguration) throws(ServiceError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServiceError(setting: setting, "\"\(text)\": use address:port, e.g. 127.0.0.1:8080 or 0.0.0.0:8080")
        }
        var address = String(text[..<colon])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        configuration.listenAddress = address
        configuration.listenPort = port
    }

    private func lines(ofSecretFile path: String, setting: String) throws(ServiceError) -> [String] {
        guard let bytes = readFile(path) else { throw ServiceError(setting: setting, Self.cannotRead(path)) }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return try checked(tokens: lines, setting: setting, source: path)
    }

    /// Bearer tokens as given by a file or a list: at least one, each at least 16 characters.
    private func checked(tokens: [String], setting: String, source: String) throws(ServiceError) -> [String] {
        guard !tokens.isEmpty else { throw ServiceError(setting: setting, "\(source) holds no token") }
        if tokens.contains(where: { $0.count < 16 }) {
            throw ServiceError(setting: setting, "tokens must be at least 16 characters (use e.g. `openssl rand -hex 32`)")
        }
        return tokens
    }

    private func bool(_ text: String, _ setting: String) throws(ServiceError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ServiceError(setting: setting, "\"\(text)\": use true or false")
        }
    }

    private func number(_ text: String, _ setting: String, _ range: ClosedRange<Int>) throws(ServiceError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ServiceError(setting: setting, "\"\(text)\": a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private func logLevel(_ text: String, _ setting: String) throws(ServiceError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ServiceError(setting: setting, "\"\(text)\": use debug, info, warning or error")
        }
        return level
    }
}

/// Typed reads of one object of the configuration file; unknown keys are refused by name.
private struct FileObject {
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
