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
                help: "JSON file with the settings below (keys in the second column; paths in it are relative to its folder). "
                    + "An environment variable overrides the same key: for the app, field by field (the rest of the file's app "
                    + "is kept; with several apps in the file, PUSHGW_APP_NAME picks the one); PUSHGW_BEARER_TOKENS(_FILE) "
                    + "replace the file's tokens"),
        Setting(environment: "PUSHGW_LISTEN", fileKey: "listen", defaultValue: "127.0.0.1:8080",
                help: "IP address:port of the HTTP API (IPv6 as [::1]:8080); port 0 picks a free one"),
        Setting(environment: "PUSHGW_BEARER_TOKENS", fileKey: "-", defaultValue: "none",
                help: "comma-separated API tokens, each at least 16 characters (prefer the _FILE form: secrets in files, not in the environment; with it, the tokens of both are accepted)"),
        Setting(environment: "PUSHGW_BEARER_TOKENS_FILE", fileKey: "bearer_tokens_file", defaultValue: "none",
                help: "file with one API token per line (at least 16 printable ASCII characters, no spaces; a line starting with # is a comment); several may be active (rotation)"),
        Setting(environment: "PUSHGW_METRICS_TOKEN_FILE", fileKey: "metrics_token_file", defaultValue: "none (open)",
                help: "file whose first token line is the token /metrics requires (one token: no rotation); unset: /metrics is open"),
        Setting(environment: "PUSHGW_INSECURE_NO_AUTH", fileKey: "insecure_no_auth", defaultValue: "false",
                help: "run without API tokens; only allowed when listening on a loopback address"),
        Setting(environment: "PUSHGW_DEDUP_WINDOW_SECONDS", fileKey: "dedup_window_seconds", defaultValue: "600",
                help: "how long an event_id is remembered, so a retried event is not sent twice (0: not remembered)"),
        Setting(environment: "PUSHGW_DEDUP_CAPACITY", fileKey: "dedup_capacity", defaultValue: "20000",
                help: "most events remembered at once (about 0.2 KB per two-device event); beyond it the oldest are forgotten first. "
                    + "In-process window only: with PUSHGW_REDIS_URL the records are in Redis, each kept for the window, "
                    + "and this setting is not used (bound Redis with its own maxmemory)"),
        Setting(environment: "PUSHGW_DEDUP_MEMORY_MB", fileKey: "dedup_memory_mb", defaultValue: "64",
                help: "most memory (MiB) the remembered events take (a 500-device event about 33 KB); beyond it the "
                    + "oldest are forgotten first. In-process window only: not used with PUSHGW_REDIS_URL"),
        Setting(environment: "PUSHGW_REQUEST_DEADLINE_SECONDS", fileKey: "request_deadline_seconds", defaultValue: "30",
                help: "per-request budget for provider retries"),
        Setting(environment: "PUSHGW_MAX_CONNECTIONS", fileKey: "max_connections", defaultValue: "1024",
                help: "client connections held at once (keep the open-files limit, ulimit -n, above it)"),
        Setting(environment: "PUSHGW_MAX_CONNECTIONS_PER_ADDRESS", fileKey: "max_connections_per_address", defaultValue: "0 (no limit)",
                help: "connections one client address may hold, so one client cannot take every slot; behind a "
                    + "load balancer or proxy all clients share its address, so leave it 0 there (each event loop enforces its share)"),
        Setting(environment: "PUSHGW_SHUTDOWN_DELAY_SECONDS", fileKey: "shutdown_delay_seconds", defaultValue: "0",
                help: "after SIGTERM, keep serving this long with /readyz answering 503 (so a load balancer stops "
                    + "routing here) before new connections are refused"),
        Setting(environment: "PUSHGW_SHUTDOWN_DRAIN_SECONDS", fileKey: "shutdown_drain_seconds", defaultValue: "10",
                help: "then, how long notifications already taken may take to finish; one still waiting on a provider "
                    + "is answered 503 shutting_down"),
        Setting(environment: "PUSHGW_DEFAULT_LOCALE", fileKey: "default_locale", defaultValue: "en",
                help: "placeholder language for recipients without a locale: en, vi or fr (a region such as vi-VN is ignored)"),
        Setting(environment: "PUSHGW_SELF_SENDER_IDS", fileKey: "self_sender_ids", defaultValue: "none",
                help: "comma-separated sender ids whose events are never sent (the owner's own replies)"),
        Setting(environment: "PUSHGW_LOG_LEVEL", fileKey: "log_level", defaultValue: "info",
                help: "debug, info, warning or error; logs are JSON lines on standard error"),
        Setting(environment: "PUSHGW_APP_NAME", fileKey: "apps[].name", defaultValue: "default",
                help: "the app the PUSHGW_APNS_*/PUSHGW_FCM_*/PUSHGW_WEB_LINK_TEMPLATE/PUSHGW_DATA_KEYS settings describe; with a configuration file, "
                    + "one of its apps (needed when it lists several)"),
        Setting(environment: "PUSHGW_APNS_KEY_FILE", fileKey: "apps[].apns.key_file", defaultValue: "none",
                help: "APNs auth key (.p8, PKCS#8 PEM); with key id, team id and topic enables direct APNs"),
        Setting(environment: "PUSHGW_APNS_KEY_ID", fileKey: "apps[].apns.key_id", defaultValue: "none", help: "10-character APNs key id"),
        Setting(environment: "PUSHGW_APNS_TEAM_ID", fileKey: "apps[].apns.team_id", defaultValue: "none", help: "10-character Apple team id"),
        Setting(environment: "PUSHGW_APNS_TOPIC", fileKey: "apps[].apns.topic", defaultValue: "none", help: "the app's bundle id"),
        Setting(environment: "PUSHGW_APNS_ENVIRONMENT", fileKey: "apps[].apns.environment", defaultValue: "production",
                help: "production or sandbox (Apple's origin; give this or the base URL, not both)"),
        Setting(environment: "PUSHGW_APNS_BASE_URL", fileKey: "apps[].apns.base_url", defaultValue: "per environment",
                help: "explicit APNs origin https://host[:port] (a proxy or a simulator); in the environment it replaces a file's environment, and the reverse"),
        Setting(environment: "PUSHGW_APNS_CA_FILE", fileKey: "apps[].apns.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for APNs"),
        Setting(environment: "PUSHGW_APNS_CONNECTIONS", fileKey: "apps[].apns.connections", defaultValue: "one per core, at least 2",
                help: "1 to 64: HTTP/2 connections to APNs per app (one per core keeps every event on one thread)"),
        Setting(environment: "PUSHGW_APNS_TOKEN_REFRESH_MINUTES", fileKey: "apps[].apns.token_refresh_minutes", defaultValue: "40",
                help: "20 to 50: age at which the APNs provider token (JWT) is replaced (Apple: not more often than every 20 minutes, "
                    + "valid for 60)"),
        Setting(environment: "PUSHGW_FCM_SERVICE_ACCOUNT_FILE", fileKey: "apps[].fcm.service_account_file", defaultValue: "none",
                help: "Firebase service-account JSON; enables FCM HTTP v1"),
        Setting(environment: "PUSHGW_FCM_PROJECT_ID", fileKey: "apps[].fcm.project_id", defaultValue: "the service account's",
                help: "the Firebase project to send through"),
        Setting(environment: "PUSHGW_FCM_BASE_URL", fileKey: "apps[].fcm.base_url", defaultValue: "https://fcm.googleapis.com",
                help: "explicit FCM origin https://host[:port] (a proxy or a simulator)"),
        Setting(environment: "PUSHGW_FCM_CA_FILE", fileKey: "apps[].fcm.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for FCM and its OAuth token endpoint"),
        Setting(environment: "PUSHGW_FCM_CONNECTIONS", fileKey: "apps[].fcm.connections", defaultValue: "one per core, at least 2",
                help: "1 to 64: HTTP/2 connections to FCM per app (one per core keeps every event on one thread)"),
        Setting(environment: "PUSHGW_WEBPUSH_VAPID_KEY_FILE", fileKey: "apps[].webpush.vapid_key_file", defaultValue: "none",
                help: "the app's VAPID private key (PEM, or the base64url raw form; `pushgw vapid-keys` makes one); enables direct "
                    + "web push to webpush subscriptions (without it they are skipped, platform_not_configured)"),
        Setting(environment: "PUSHGW_WEBPUSH_VAPID_SUBJECT", fileKey: "apps[].webpush.vapid_subject", defaultValue: "none",
                help: "the contact push services see (VAPID sub): mailto:ops@example.com or an https: URL; required with the key"),
        Setting(environment: "PUSHGW_WEBPUSH_ALLOWED_HOSTS", fileKey: "apps[].webpush.allowed_hosts",
                defaultValue: "fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com, *.notify.windows.com",
                help: "comma-separated push service hosts endpoints may name (host names, *.domain, addresses); any other endpoint is "
                    + "skipped for its device (endpoint_host_not_allowed)"),
        Setting(environment: "PUSHGW_WEBPUSH_CA_FILE", fileKey: "apps[].webpush.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for push services"),
        Setting(environment: "PUSHGW_WEBPUSH_ALLOW_PRIVATE_ADDRESSES", fileKey: "apps[].webpush.allow_private_addresses",
                defaultValue: "false",
                help: "let endpoints resolve to private or loopback addresses (a local push service in tests; never cloud metadata "
                    + "addresses); by default only public addresses are connected to, checked after DNS"),
        Setting(environment: "PUSHGW_WEBPUSH_CONNECTIONS", fileKey: "apps[].webpush.connections", defaultValue: "1",
                help: "1 to 64: HTTP/2 connections per push service origin"),
        Setting(environment: "PUSHGW_WEB_LINK_TEMPLATE", fileKey: "apps[].web.link_template", defaultValue: "none",
                help: "the page a browser notification (fcm_web) opens when clicked, an https:// URL in which {conversation_id} "
                    + "is replaced with the conversation id, percent-encoded, e.g. https://chat.example/c/{conversation_id}; "
                    + "unset: no link (the browser's default)"),
        Setting(environment: "PUSHGW_DATA_KEYS", fileKey: "apps[].data_keys", defaultValue: "none",
                help: "JSON object renaming data keys, e.g. {\"ps_thread_id\":\"conversationId\",\"avatar_url\":null}"),
        Setting(environment: "-", fileKey: "apps[].feedback_url", defaultValue: "none",
                help: "async mode: where the app's rejected tokens and final failures are POSTed, signed (X-Pushgw-Signature)"),
        Setting(environment: "-", fileKey: "apps[].feedback_secret_file", defaultValue: "none",
                help: "file whose first line (at least 16 characters) is the HMAC-SHA256 secret of the app's feedback_url"),
        Setting(environment: "PUSHGW_AVATAR_ALLOW_HTTP", fileKey: "avatar.allow_http", defaultValue: "false",
                help: "let avatars be fetched over plain http"),
        Setting(environment: "PUSHGW_AVATAR_ALLOWED_HOSTS", fileKey: "avatar.allowed_hosts", defaultValue: "any public host",
                help: "comma-separated avatar hosts: host names, *.domain, IPv4 addresses, IPv6 addresses in brackets"),
        Setting(environment: "PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES", fileKey: "avatar.allow_private_addresses", defaultValue: "false",
                help: "let avatars come from private or loopback addresses (never from IPv4 link-local 169.254/16 or another cloud metadata service)"),
        Setting(environment: "PUSHGW_AVATAR_PRIVATE_NETWORKS", fileKey: "avatar.private_networks", defaultValue: "none",
                help: "comma-separated private networks avatars may come from all the same (an internal CDN), as CIDR blocks "
                    + "or single addresses: 10.20.0.0/16, fd12:3456::/48; a block admits every address in it, a cloud "
                    + "metadata service's included, so name only your own"),
        Setting(environment: "PUSHGW_AVATAR_CA_FILE", fileKey: "avatar.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for avatar downloads"),
        Setting(environment: "PUSHGW_AVATAR_MAX_KB", fileKey: "avatar.max_kb", defaultValue: "1024",
                help: "largest avatar downloaded, in KiB; a larger one is dropped (too_large)"),
        Setting(environment: "PUSHGW_AVATAR_TIMEOUT_MS", fileKey: "avatar.timeout_ms", defaultValue: "3000",
                help: "most time one avatar download may take, redirects, DNS and TLS included; a notification waits for "
                    + "it at most half the time left before its deadline"),
        Setting(environment: "PUSHGW_AVATAR_CACHE_ENTRIES", fileKey: "avatar.cache_entries", defaultValue: "1024",
                help: "avatar URLs remembered, least recently used forgotten first (0: none)"),
        Setting(environment: "PUSHGW_AVATAR_CACHE_SECONDS", fileKey: "avatar.cache_seconds", defaultValue: "600",
                help: "how long a downloaded avatar is remembered (a refused one: at most 60 s)"),
        Setting(environment: "PUSHGW_AVATAR_FETCH_THREADS", fileKey: "avatar.fetch_threads", defaultValue: "4",
                help: "avatar downloads at once, each on its own thread; one host gets at most half of them"),
        Setting(environment: "PUSHGW_PROXY_URL", fileKey: "proxy.url", defaultValue: "HTTPS_PROXY, then https_proxy, else none",
                help: "HTTP proxy for APNs and FCM (a CONNECT tunnel: TLS and HTTP/2 stay end to end), the FCM OAuth token "
                    + "exchange and avatar downloads, not Redis or feedback webhooks: http://[user:password@]host:port "
                    + "(Basic auth; the password is never logged; percent-encode @ : / in it). Overrides the file and "
                    + "HTTPS_PROXY/https_proxy; none: no proxy whatever they say"),
        Setting(environment: "PUSHGW_NO_PROXY", fileKey: "proxy.no_proxy", defaultValue: "NO_PROXY, then no_proxy, else none",
                help: "comma-separated hosts reached directly although a proxy is set: a name (and every host under it; "
                    + "a leading dot is optional), an IP address, a CIDR block (10.0.0.0/8), or * (every host); a :port is "
                    + "ignored. Loopback is not bypassed unless listed (add localhost,127.0.0.1,::1 for local simulators)"),
        Setting(environment: "PUSHGW_REDIS_URL", fileKey: "redis.url", defaultValue: "none (one process)",
                help: "the shared store of a fleet of replicas (Redis or Valkey): dedup claims and records, and one APNs provider "
                    + "token per team and key; redis://[user:password@]host[:port][/db], or rediss:// for TLS; the password is "
                    + "never logged. Unset: one process, with the in-process window and tokens"),
        Setting(environment: "PUSHGW_REDIS_CA_FILE", fileKey: "redis.ca_file", defaultValue: "system CAs",
                help: "PEM file of CAs to trust for a rediss:// store"),
        Setting(environment: "PUSHGW_REDIS_CONNECT_TIMEOUT_MS", fileKey: "redis.connect_timeout_ms", defaultValue: "2000",
                help: "most time to connect to the store (DNS, TCP, TLS, AUTH and SELECT); a store that cannot be reached is "
                    + "tried again after 50 ms, doubling up to 2 s"),
        Setting(environment: "PUSHGW_REDIS_COMMAND_TIMEOUT_MS", fileKey: "redis.command_timeout_ms", defaultValue: "1000",
                help: "most time the store may take to answer one command; below the request deadline (a notification whose "
                    + "claim is not answered in time is answered as a store failure)"),
        Setting(environment: "PUSHGW_REDIS_PREFIX", fileKey: "redis.prefix", defaultValue: "pushgw:",
                help: "put before every key, so several gateways or programs share one store (printable ASCII, no spaces or braces)"),
        Setting(environment: "PUSHGW_REDIS_ON_FAILURE", fileKey: "redis.on_failure", defaultValue: "refuse",
                help: "when the store cannot be reached: refuse (answer 503 store_unavailable, nothing sent, /readyz 503) or "
                    + "send_without_dedup (send without claim or record, counted in pushgw_dedup_bypassed_total; devices may "
                    + "get a notification twice)"),
        Setting(environment: "PUSHGW_REDIS_QUEUE_VISIBILITY_SECONDS", fileKey: "redis.queue_visibility_seconds", defaultValue: "60",
                help: "how long an async event a replica took may stay unacknowledged before another replica takes it over "
                    + "(a replica that died); at least twice the request deadline is used"),
        Setting(environment: "PUSHGW_REDIS_QUEUE_MAX_LENGTH", fileKey: "redis.queue_max_length", defaultValue: "100000",
                help: "events an app's async queue holds, not yet acknowledged, before POST /v1/notify?mode=async answers 503 "
                    + "queue_full (retryable; nothing is queued, nothing already queued is dropped)"),
        Setting(environment: "PUSHGW_REDIS_QUEUE_RETENTION_SECONDS", fileKey: "redis.queue_retention_seconds", defaultValue: "86400",
                help: "how long GET /v1/events/{event_id} can read an async event's state after its last change"),
        Setting(environment: "PUSHGW_REDIS_QUEUE_MAX_DELIVERIES", fileKey: "redis.queue_max_deliveries", defaultValue: "5",
                help: "deliveries of one async event (take-overs included) before it is given up: recorded as failed, sent to "
                    + "the app's feedback webhook as a final failure, acknowledged, counted in pushgw_queue_given_up_total"),
        Setting(environment: "PUSHGW_REDIS_QUEUE_DEAD_CONSUMER_SECONDS", fileKey: "redis.queue_dead_consumer_seconds",
                defaultValue: "86400",
                help: "a replica that has taken nothing from the queue for this long, with nothing pending on it, is removed "
                    + "from the consumer group by another (at least twice the visibility timeout is used)"),
    ]

    /// The `--help` text (also `pushgw serve --help`).
    public static var helpText: String {
        var lines = [
            "usage: pushgw [serve] [--config FILE] [--insecure-no-auth] [--demo]",
            "       pushgw render EVENT.json [--config FILE] [--now EPOCH_SECONDS] [--compact]   (pushgw render --help)",
            "       pushgw simulators [--env-file FILE]                                           (pushgw simulators --help)",
            "       pushgw vapid-keys [--json]                                                    (a VAPID key pair for web push)",
            "       pushgw --version                                                              (the version and the commit)",
            "",
            "  --config FILE       the JSON configuration file (as PUSHGW_CONFIG_FILE)",
            "  --insecure-no-auth  serve without API tokens; only on a loopback address",
            "  --demo              send to the built-in APNs, FCM and web push simulators (throwaway keys, on 127.0.0.1)",
            "                      instead of the configured providers; the first app keeps its name and data keys",
            "",
            "Credentials: an app needs PUSHGW_APNS_KEY_FILE, PUSHGW_APNS_KEY_ID, PUSHGW_APNS_TEAM_ID and",
            "PUSHGW_APNS_TOPIC (direct APNs), and/or PUSHGW_FCM_SERVICE_ACCOUNT_FILE (FCM); a partial set refuses",
            "the start. With nothing provider-related configured and a loopback listen address, `pushgw` runs the",
            "demo (as with --demo) and prints the commands to try it; on another address it refuses to start.",
            "An unknown PUSHGW_* variable refuses the start.",
            "",
            "Settings (environment variable, configuration-file key, default):",
        ]
        for setting in all {
            lines.append("  \(setting.environment)")
            lines.append("      file: \(setting.fileKey)   default: \(setting.defaultValue)")
            lines.append("      \(WholeNumberSetting.rangeText(of: setting.environment) ?? "")\(setting.help)")
        }
        return lines.joined(separator: "\n")
    }

    /// `pushgw render --help`.
    public static let renderHelpText = """
        usage: pushgw render EVENT.json [--config FILE] [--now EPOCH_SECONDS] [--compact]

        Prints the /v1/render answer for one event (EVENT.json, or - for standard input), offline:
        no provider is called and no avatar downloaded. A refused event prints the JSON error and exits 1.

          --config FILE   the service's configuration file (pushgw --help); PUSHGW_* variables apply
                          as for the service. No secret is read (keys, CA and token files need not be
                          readable); a service account is read only when fcm.project_id is not given.
                          With no app configured: one demo app (topic com.example.pushgw, project pushgw-demo).
          --now SECONDS   the clock for apns-expiration (default: now)
          --compact       one line of JSON
        """

    /// `pushgw simulators --help`.
    public static let simulatorsHelpText = """
        usage: pushgw simulators [--env-file FILE]

        Runs only the built-in strict APNs, FCM (with its OAuth token endpoint) and web push simulators,
        on 127.0.0.1 with throwaway keys and certificates, until SIGTERM or Ctrl-C, and prints the settings
        that point a gateway at them: the PUSHGW_APNS_*, PUSHGW_FCM_* and PUSHGW_WEBPUSH_* settings, and a token
        file with a fresh API token in PUSHGW_BEARER_TOKENS_FILE. A gateway started with them is
        configured as for real providers (the benchmarks run it that way).

          --env-file FILE  also write those settings to FILE (mode 0600) as `export NAME=value` lines
        """
}
