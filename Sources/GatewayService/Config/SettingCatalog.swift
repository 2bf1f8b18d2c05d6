/// Every setting of the gateway: its environment variable, the key in the
/// JSON configuration file, its default and what it is for. `pushgw --help`
/// prints this table; the loader reads exactly these names.
public enum SettingCatalog {
    /// One documented setting.
    public struct Setting: Sendable {
        public let environment: String
        public let fileKey: String
        public let defaultValue: String
        public let help: String
    }

    public static let all: [Setting] = [
        Setting(environment: "PUSHGW_CONFIG_FILE", fileKey: "-", defaultValue: "none",
                help: "JSON file with the settings below (keys in the second column); environment variables win"),
        Setting(environment: "PUSHGW_LISTEN", fileKey: "listen", defaultValue: "127.0.0.1:8080",
                help: "address:port of the HTTP API"),
        Setting(environment: "PUSHGW_BEARER_TOKENS", fileKey: "-", defaultValue: "none",
                help: "comma-separated API tokens (prefer the _FILE form: secrets in files, not in the environment)"),
        Setting(environment: "PUSHGW_BEARER_TOKENS_FILE", fileKey: "bearer_tokens_file", defaultValue: "none",
                help: "file with one API token per line; several may be active (rotation)"),
        Setting(environment: "PUSHGW_METRICS_TOKEN_FILE", fileKey: "metrics_token_file", defaultValue: "none (open)",
                help: "file with the token /metrics requires; unset: /metrics is open"),
        Setting(environment: "PUSHGW_INSECURE_NO_AUTH", fileKey: "insecure_no_auth", defaultValue: "false",
                help: "run without API tokens; only allowed when listening on a loopback address"),
        Setting(environment: "PUSHGW_DEDUP_WINDOW_SECONDS", fileKey: "dedup_window_seconds", defaultValue: "600",
                help: "how long an event_id is remembered, so a retried event is not sent twice"),
        Setting(environment: "PUSHGW_DEDUP_CAPACITY", fileKey: "dedup_capacity", defaultValue: "20000",
                help: "most events remembered at once (about 0.5 KB each); beyond it the oldest are forgotten first"),
        Setting(environment: "PUSHGW_REQUEST_DEADLINE_SECONDS", fileKey: "request_deadline_seconds", defaultValue: "30",
                help: "per-request budget for provider retries"),
        Setting(environment: "PUSHGW_DEFAULT_LOCALE", fileKey: "default_locale", defaultValue: "en",
                help: "placeholder language for recipients without a locale (en, vi, fr)"),
        Setting(environment: "PUSHGW_SELF_SENDER_IDS", fileKey: "self_sender_ids", defaultValue: "none",
                help: "comma-separated sender ids whose events are never sent (the owner's own replies)"),
        Setting(environment: "PUSHGW_LOG_LEVEL", fileKey: "log_level", defaultValue: "info",
                help: "debug, info, warning or error; logs are JSON lines on standard error"),
        Setting(environment: "PUSHGW_APP_NAME", fileKey: "apps[].name", defaultValue: "default",
                help: "name of the app configured from the environment (the file may list several apps)"),
        Setting(environment: "PUSHGW_APNS_KEY_FILE", fileKey: "apps[].apns.key_file", defaultValue: "none",
                help: "APNs auth key (.p8, PKCS#8 PEM); with key id, team id and topic enables direct APNs"),
        Setting(environment: "PUSHGW_APNS_KEY_ID", fileKey: "apps[].apns.key_id", defaultValue: "none", help: "10-character APNs key id"),
        Setting(environment: "PUSHGW_APNS_TEAM_ID", fileKey: "apps[].apns.team_id", defaultValue: "none", help: "10-character Apple team id"),
        Setting(environment: "PUSHGW_APNS_TOPIC", fileKey: "apps[].apns.topic", defaultValue: "none", help: "the app's bundle id"),
        Setting(environment: "PUSHGW_APNS_ENVIRONMENT", fileKey: "apps[].apns.environment", defaultValue: "production",
                help: "production or sandbox"),
        Setting(environment: "PUSHGW_APNS_BASE_URL", fileKey: "apps[].apns.base_url", defaultValue: "per environment",
                help: "explicit APNs origin (a proxy or a simulator)"),
        Setting(environment: "PUSHGW_APNS_CA_FILE", fileKey: "apps[].apns.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for APNs"),
        Setting(environment: "PUSHGW_APNS_CONNECTIONS", fileKey: "apps[].apns.connections", defaultValue: "one per core, at least 2",
                help: "HTTP/2 connections to APNs per app (one per core keeps every event on one thread)"),
        Setting(environment: "PUSHGW_FCM_SERVICE_ACCOUNT_FILE", fileKey: "apps[].fcm.service_account_file", defaultValue: "none",
                help: "Firebase service-account JSON; enables FCM HTTP v1 (project from the file)"),
        Setting(environment: "PUSHGW_FCM_BASE_URL", fileKey: "apps[].fcm.base_url", defaultValue: "https://fcm.googleapis.com",
                help: "explicit FCM origin (a proxy or a simulator)"),
        Setting(environment: "PUSHGW_FCM_CA_FILE", fileKey: "apps[].fcm.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for FCM and its OAuth token endpoint"),
        Setting(environment: "PUSHGW_FCM_CONNECTIONS", fileKey: "apps[].fcm.connections", defaultValue: "one per core, at least 2",
                help: "HTTP/2 connections to FCM per app (one per core keeps every event on one thread)"),
        Setting(environment: "PUSHGW_DATA_KEYS", fileKey: "apps[].data_keys", defaultValue: "none",
                help: "JSON object renaming data keys, e.g. {\"ps_thread_id\":\"conversationId\",\"avatar_url\":null}"),
        Setting(environment: "PUSHGW_AVATAR_ALLOW_HTTP", fileKey: "avatar.allow_http", defaultValue: "false",
                help: "let avatars be fetched over plain http"),
        Setting(environment: "PUSHGW_AVATAR_ALLOWED_HOSTS", fileKey: "avatar.allowed_hosts", defaultValue: "any public host",
                help: "comma-separated avatar hosts (exact or *.suffix)"),
        Setting(environment: "PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES", fileKey: "avatar.allow_private_addresses", defaultValue: "false",
                help: "let avatars come from private, loopback or link-local addresses"),
    ]

    /// The `--help` text.
    public static var helpText: String {
        var lines = [
            "usage: pushgw [serve] [--config FILE] [--insecure-no-auth] [--demo]",
            "       pushgw render EVENT.json [--config FILE] [--now EPOCH_SECONDS] [--compact]",
            "       pushgw simulators [--env-file FILE]",
            "",
            "With no provider credentials configured, `pushgw` runs against built-in APNs and FCM",
            "simulators with throwaway keys and prints a bearer token to try it with.",
            "`pushgw simulators` runs only those simulators, in their own process, and prints the",
            "settings that point a gateway at them.",
            "",
            "Settings (environment variable, configuration-file key, default):",
        ]
        for setting in all {
            lines.append("  \(setting.environment)")
            lines.append("      file: \(setting.fileKey)   default: \(setting.defaultValue)")
            lines.append("      \(setting.help)")
        }
        return lines.joined(separator: "\n")
    }
}
