import APNsHTTP2
import PayloadBuilder

/// Checking one app: credentials complete and usable, each error under the
/// setting the user wrote.
extension ConfigurationLoader {
    func settings(of app: AppDraft, use: Use) throws(ServiceError) -> GatewayConfiguration.AppSettings {
        guard app.apns != nil || app.fcm != nil || app.webPush != nil else {
            let how = app.fromFile
                ? "add \"apns\" {key_file, key_id, team_id, topic} or \"fcm\" {service_account_file} to it"
                : "set PUSHGW_APNS_KEY_FILE, PUSHGW_APNS_KEY_ID, PUSHGW_APNS_TEAM_ID and PUSHGW_APNS_TOPIC, or PUSHGW_FCM_SERVICE_ACCOUNT_FILE"
            throw ServiceError(setting: app.fromFile ? "\(app.label) (\(app.name))" : app.label, "no credentials: \(how)")
        }
        var settings = GatewayConfiguration.AppSettings(name: app.name)
        if let apns = app.apns { settings.apns = try apnsSettings(apns, of: app, use: use) }
        if let fcm = app.fcm { settings.fcm = try fcmSettings(fcm, of: app, use: use) }
        if let webPush = app.webPush { settings.webPush = try webPushSettings(webPush, of: app, use: use) }
        if let (value, setting) = app.dataKeys {
            do {
                settings.dataKeys = try DataKeyNames(json: value, setting: setting)
            } catch {
                throw ServiceError(setting: error.setting, error.message)
            }
        }
        if let template = app.webLinkTemplate {
            do {
                settings.webLink = try WebLinkTemplate(template.value, setting: template.setting)
            } catch {
                throw ServiceError(setting: error.setting, error.message)
            }
        }
        settings.feedback = try feedbackSettings(of: app, use: use)
        return settings
    }

    /// The feedback webhook: a URL and its secret, both or neither; the
    /// secret (the file's first line, at least 16 characters) is read for the service only.
    private func feedbackSettings(of app: AppDraft, use: Use) throws(ServiceError) -> GatewayConfiguration.FeedbackSettings? {
        switch (app.feedbackURL, app.feedbackSecretFile) {
        case (nil, nil):
            return nil
        case let (url?, nil):
            throw ServiceError(setting: "\(app.label).feedback_secret_file",
                               "required with \(url.setting): a file whose first line is the secret feedback is signed with")
        case let (nil, secret?):
            throw ServiceError(setting: "\(app.label).feedback_url", "required with \(secret.setting): where to POST feedback")
        case let (url?, secretFile?):
            guard url.value.hasPrefix("https://") || url.value.hasPrefix("http://"), url.value.utf8.count > 8,
                  !url.value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw ServiceError(setting: url.setting, "an http:// or https:// URL, without spaces")
            }
            guard use == .service else { return GatewayConfiguration.FeedbackSettings(url: url.value, secret: []) }
            guard let secret = try lines(ofSecretFile: secretFile).first else {
                throw ServiceError(setting: secretFile.setting, "the file holds no secret line")
            }
            return GatewayConfiguration.FeedbackSettings(url: url.value, secret: Array(secret.utf8))
        }
    }

    private func apnsSettings(_ draft: AppDraft.APNs, of app: AppDraft, use: Use) throws(ServiceError) -> GatewayConfiguration.APNsSettings {
        // An offline render signs nothing: the topic is all it needs.
        let credentials: [(key: String, value: Sourced?)] = [("key_file", draft.keyFile), ("key_id", draft.keyID), ("team_id", draft.teamID)]
        let required = (use == .service ? credentials : []) + [("topic", draft.topic)]
        let missing = required.filter { $0.value == nil }.map { app.settingName("apns", $0.key) }
        guard missing.isEmpty, let topic = draft.topic else {
            let what = use == .service ? "required for APNs, with the other three of " : "required to render for APNs: "
            throw ServiceError(setting: missing[0], what
                + "\(required.map { app.settingName("apns", $0.key) }.joined(separator: ", ")); missing: \(missing.joined(separator: ", "))")
        }
        if use == .service, let keyFile = draft.keyFile { _ = try read(keyFile) }
        for field in [draft.keyID, draft.teamID].compactMap({ $0 }) where !APNsProviderToken.isAppleIdentifier(field.value) {
            throw ServiceError(setting: field.setting, "10 characters A-Z and 0-9, as shown in Apple's developer account")
        }
        guard !topic.value.isEmpty, !topic.value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw ServiceError(setting: topic.setting, "the app's bundle id, without spaces or control characters")
        }
        if let environment = draft.environment, let baseURL = draft.baseURL {
            throw ServiceError(setting: baseURL.setting, "give either \(environment.setting) or \(baseURL.setting), not both: "
                + "the environment names Apple's origin, the base URL another one")
        }
        var origin = APNsTarget.production
        switch draft.environment?.value ?? "production" {
        case "production": break
        case "sandbox", "development": origin = APNsTarget.sandbox
        case let other: throw ServiceError(setting: draft.environment!.setting, "\"\(other)\": use production or sandbox")
        }
        if let baseURL = draft.baseURL { origin = try Self.origin(baseURL.value, baseURL.setting) }
        if let caFile = draft.caFile { try checkCAFile(caFile, use: use) }
        // Offline, absent credentials stay empty: that configuration never sends.
        var settings = GatewayConfiguration.APNsSettings(keyFile: draft.keyFile?.value ?? "", keyID: draft.keyID?.value ?? "",
                                                         teamID: draft.teamID?.value ?? "",
                                                         topic: topic.value, baseURL: origin, caFile: draft.caFile?.value)
        if let connections = draft.connections { settings.connections = try Self.number(connections.value, connections.setting, 1...64) }
        if let minutes = draft.tokenRefreshMinutes {
            settings.tokenRefreshAge = .seconds(60 * (try Self.number(minutes.value, minutes.setting, 20...50)))
        }
        settings.keyFileSetting = draft.keyFile?.setting
        settings.baseURLSetting = draft.baseURL?.setting ?? draft.environment?.setting
        settings.caFileSetting = draft.caFile?.setting
        settings.tokenRefreshSetting = draft.tokenRefreshMinutes?.setting
        return settings
    }

    private func fcmSettings(_ draft: AppDraft.FCM, of app: AppDraft, use: Use) throws(ServiceError) -> GatewayConfiguration.FCMSettings {
        // An offline render needs only the project id, given or read from the file.
        let file = draft.serviceAccountFile
        guard file != nil || (use == .offlineRender && draft.projectID != nil) else {
            let what = use == .service ? "required for FCM: the Firebase service-account JSON file"
                : "required to render for FCM, unless \(app.settingName("fcm", "project_id")) is given"
            throw ServiceError(setting: app.settingName("fcm", "service_account_file"), what)
        }
        var project = draft.projectID.map(\.value)
        if let given = draft.projectID,
           given.value.isEmpty || !given.value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) {
            throw ServiceError(setting: given.setting, "the Firebase project id, without spaces or /")
        }
        if let file, use == .service || project == nil {
            let bytes: [UInt8]
            do {
                bytes = try read(file)
            } catch where use == .offlineRender {
                throw ServiceError(setting: error.setting, error.message + "; an offline render reads it only for the project id: "
                    + "give \(app.settingName("fcm", "project_id")) instead")
            }
            guard let document = try? JSONParser.parse(bytes) else {
                throw ServiceError(setting: file.setting,
                                   "the file is not valid JSON: use the service-account key file downloaded from the Google Cloud console")
            }
            if project == nil, case let .string(found)? = document["project_id"] { project = found }
        }
        guard let project, !project.isEmpty else {
            throw ServiceError(setting: file?.setting ?? app.settingName("fcm", "project_id"), "the service-account JSON has no project_id")
        }
        var origin = FCMTarget.production
        if let baseURL = draft.baseURL { origin = try Self.origin(baseURL.value, baseURL.setting) }
        if let caFile = draft.caFile { try checkCAFile(caFile, use: use) }
        var settings = GatewayConfiguration.FCMSettings(serviceAccountFile: file?.value ?? "", projectID: project, baseURL: origin,
                                                        caFile: draft.caFile?.value)
        if let connections = draft.connections { settings.connections = try Self.number(connections.value, connections.setting, 1...64) }
        settings.serviceAccountFileSetting = file?.setting
        settings.baseURLSetting = draft.baseURL?.setting
        settings.caFileSetting = draft.caFile?.setting
        return settings
    }
}
