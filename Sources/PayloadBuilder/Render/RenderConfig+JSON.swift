/// Reads the rendering part of the gateway's JSON configuration file:
///
/// ```json
/// {"default_locale": "en", "self_sender_ids": ["owner"],
///  "apps": [{"name": "chat",
///            "apns": {"topic": "com.example.chat", "environment": "production"},
///            "fcm": {"project_id": "example"},
///            "web": {"link_template": "https://chat.example/c/{conversation_id}"},
///            "data_keys": {"ps_thread_id": "conversationId", "avatar_url": null}}]}
/// ```
///
/// `apns.base_url` / `fcm.base_url` override the provider origin (a
/// simulator, a proxy). The file is the service's configuration file: the
/// keys are `ConfigFileKeys`, the service's settings (listen, credential
/// files, …) are accepted and ignored here, and any other key is an error
/// naming it. Being pure, this reader takes `fcm.project_id` from the file
/// only (the service also reads it from the service account).
extension RenderConfig {
    public init(json bytes: [UInt8]) throws(ConfigError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ConfigError(setting: error.field ?? "(file)", "not valid JSON: \(error.message)")
        }
        let root = try ConfigObject(document, setting: "", allowed: ConfigFileKeys.root)
        let defaultLocale = try root.string("default_locale") ?? "en"
        let selfSenders = try root.stringArray("self_sender_ids") ?? []
        guard case let .array(appValues)? = root.value("apps") else {
            throw ConfigError(setting: "apps", "required: a list of apps, each with a name and apns and/or fcm")
        }
        var apps: [AppProfile] = []
        for (index, value) in appValues.enumerated() {
            apps.append(try RenderConfig.app(value, setting: "apps[\(index)]"))
        }
        try self.init(apps: apps, defaultLocale: defaultLocale, selfSenderIDs: Set(selfSenders))
    }

    private static func app(_ value: JSONValue, setting: String) throws(ConfigError) -> AppProfile {
        let object = try ConfigObject(value, setting: setting, allowed: ConfigFileKeys.app)
        guard let name = try object.string("name"), !name.isEmpty else {
            throw ConfigError(setting: "\(setting).name", "required: a non-empty app name")
        }
        var apns: APNsTarget?
        if let apnsValue = object.value("apns"), apnsValue != .null {
            let section = try ConfigObject(apnsValue, setting: "\(setting).apns", allowed: ConfigFileKeys.apns)
            guard let topic = try section.string("topic"), !topic.isEmpty else {
                throw ConfigError(setting: "\(setting).apns.topic", "required: the app's bundle id")
            }
            let base: String
            switch try section.string("environment") ?? "production" {
            case "production": base = APNsTarget.production
            case "sandbox", "development": base = APNsTarget.sandbox
            case let other:
                throw ConfigError(setting: "\(setting).apns.environment", "\"\(other)\": use production or sandbox")
            }
            apns = APNsTarget(topic: topic, baseURL: try section.url("base_url") ?? base)
        }
        var fcm: FCMTarget?
        if let fcmValue = object.value("fcm"), fcmValue != .null {
            let section = try ConfigObject(fcmValue, setting: "\(setting).fcm", allowed: ConfigFileKeys.fcm)
            let project = try section.string("project_id")
            guard let project, !project.isEmpty, project.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
                throw ConfigError(setting: "\(setting).fcm.project_id", "required: the Firebase project id")
            }
            fcm = FCMTarget(projectID: project, baseURL: try section.url("base_url") ?? FCMTarget.production)
        }
        // A webpush section with a VAPID key sends subscriptions (its other keys are the service's).
        var sendsWebPush = false
        if let webPushValue = object.value("webpush"), webPushValue != .null {
            let section = try ConfigObject(webPushValue, setting: "\(setting).webpush", allowed: ConfigFileKeys.webpush)
            sendsWebPush = try section.string("vapid_key_file") != nil
        }
        guard apns != nil || fcm != nil || sendsWebPush else {
            throw ConfigError(setting: setting, "the app \"\(name)\" needs an apns, an fcm or a webpush section")
        }
        let dataKeys = try DataKeyNames(json: object.value("data_keys"), setting: "\(setting).data_keys")
        var webLink: WebLinkTemplate?
        if let webValue = object.value("web"), webValue != .null {
            let section = try ConfigObject(webValue, setting: "\(setting).web", allowed: ConfigFileKeys.web)
            if let template = try section.string("link_template") {
                webLink = try WebLinkTemplate(template, setting: "\(setting).web.link_template")
            }
        }
        return AppProfile(name: name, apns: apns, fcm: fcm, dataKeys: dataKeys, webLink: webLink, sendsWebPush: sendsWebPush)
    }
}

/// Typed reads of one configuration object, with errors naming the setting.
private struct ConfigObject {
    let members: [(key: String, value: JSONValue)]
    let setting: String

    init(_ value: JSONValue, setting: String, allowed: Set<String>) throws(ConfigError) {
        guard case let .object(members) = value else {
            throw ConfigError(setting: setting.isEmpty ? "(file)" : setting, "must be a JSON object")
        }
        for member in members where !allowed.contains(member.key) {
            throw ConfigError(setting: name(member.key, in: setting),
                              "unknown setting (known here: \(allowed.sorted().joined(separator: ", ")))")
        }
        self.members = members
        self.setting = setting
    }

    func value(_ key: String) -> JSONValue? {
        members.first(where: { $0.key == key })?.value
    }

    func string(_ key: String) throws(ConfigError) -> String? {
        switch value(key) {
        case nil, .null?: return nil
        case let .string(text)?: return text
        default: throw ConfigError(setting: name(key, in: setting), "must be a string")
        }
    }

    func url(_ key: String) throws(ConfigError) -> String? {
        guard let text = try string(key) else { return nil }
        guard HTTPURL.isAbsolute(text) else {
            throw ConfigError(setting: name(key, in: setting), "must be an absolute http(s) URL, e.g. https://127.0.0.1:8443")
        }
        return text
    }

    func stringArray(_ key: String) throws(ConfigError) -> [String]? {
        switch value(key) {
        case nil, .null?: return nil
        case let .array(items)?:
            var strings: [String] = []
            for item in items {
                guard case let .string(text) = item else {
                    throw ConfigError(setting: name(key, in: setting), "must be a list of strings")
                }
                strings.append(text)
            }
            return strings
        default: throw ConfigError(setting: name(key, in: setting), "must be a list of strings")
        }
    }
}

private func name(_ key: String, in setting: String) -> String {
    setting.isEmpty ? key : "\(setting).\(key)"
}

extension DataKeyNames {
    /// Reads a `data_keys` object: standard key → new name, or null to leave
    /// the key out. `setting` names it in errors. Absent or null: the defaults.
    public init(json value: JSONValue?, setting: String) throws(ConfigError) {
        guard let value, value != .null else {
            self.init()
            return
        }
        guard case let .object(members) = value else {
            throw ConfigError(setting: setting, "must be an object of new names (or null to leave a key out)")
        }
        var renames: [(standard: String, wireName: String?)] = []
        for (key, member) in members {
            switch member {
            case .null: renames.append((key, nil))
            case let .string(newName): renames.append((key, newName))
            default: throw ConfigError(setting: "\(setting).\(key)", "must be a string or null")
            }
        }
        do {
            try self.init(renaming: renames)
        } catch {
            let suffix = error.setting.hasPrefix("data_keys") ? String(error.setting.dropFirst("data_keys".count)) : "." + error.setting
            throw ConfigError(setting: setting + suffix, error.message)
        }
    }
}
