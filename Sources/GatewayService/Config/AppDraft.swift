import PayloadBuilder

/// A setting's text with the name it was given under (`PUSHGW_APNS_TOPIC`
/// or `apps[0].apns.topic`), so an error names what the user wrote.
struct Sourced: Sendable {
    var value: String
    var setting: String
    /// Whether the value may appear in messages: false for a `*_FILE`
    /// value that does not look like a path (it may be a secret given by mistake).
    var shown = true
}

/// One app as the file and the environment describe it, before checking:
/// the environment's settings are laid over the file's field by field.
struct AppDraft: Sendable {
    var name: String
    /// The app in messages about it as a whole: `apps[0]` or `app default`.
    var label: String
    /// True for an app of the configuration file: missing keys are named as
    /// file keys; false for an app from the environment alone.
    var fromFile: Bool
    var apns: APNs?
    var fcm: FCM?
    var webPush: WebPush?
    /// `web.link_template` / `PUSHGW_WEB_LINK_TEMPLATE`: the page a browser notification opens.
    var webLinkTemplate: Sourced?
    /// `data_keys` / `PUSHGW_DATA_KEYS`, parsed, with its setting.
    var dataKeys: (value: JSONValue, setting: String)?
    /// `feedback_url` and `feedback_secret_file`: the async mode's feedback webhook.
    var feedbackURL, feedbackSecretFile: Sourced?

    struct APNs: Sendable {
        var keyFile, keyID, teamID, topic, environment, baseURL, caFile, connections, tokenRefreshMinutes: Sourced?
    }

    /// `webpush` / `PUSHGW_WEBPUSH_*`: direct web push. `allowedHosts` is comma-separated.
    struct WebPush: Sendable {
        var vapidKeyFile, vapidSubject, allowedHosts, caFile, allowPrivateAddresses, connections: Sourced?
    }

    struct FCM: Sendable {
        var serviceAccountFile, projectID, baseURL, caFile, connections: Sourced?
    }

    /// The name of a key of this app in messages: `apps[0].apns.key_file`
    /// for a file app, `PUSHGW_APNS_KEY_FILE` for the environment's.
    func settingName(_ section: String, _ key: String) -> String {
        fromFile ? "\(label).\(section).\(key)" : "PUSHGW_\(section.uppercased())_\(key.uppercased())"
    }
}
