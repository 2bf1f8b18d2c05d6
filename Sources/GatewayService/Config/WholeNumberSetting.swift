/// The service-wide settings that are a whole number within a range, one
/// row each: the environment variable and the file key read it the same
/// way, and `pushgw --help` shows the range from here. A file key
/// `avatar.name` is `name` in the file's `avatar` object.
struct WholeNumberSetting: Sendable {
    let environment: String
    let fileKey: String
    let range: ClosedRange<Int>
    /// Stores a value already checked against `range`.
    let apply: @Sendable (inout GatewayConfiguration, Int) -> Void

    static let all: [WholeNumberSetting] = [
        WholeNumberSetting(environment: "PUSHGW_DEDUP_WINDOW_SECONDS", fileKey: "dedup_window_seconds", range: 0...86_400) {
            $0.dedupWindow = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_DEDUP_CAPACITY", fileKey: "dedup_capacity", range: 1...10_000_000) {
            $0.dedupCapacity = $1
        },
        WholeNumberSetting(environment: "PUSHGW_DEDUP_MEMORY_MB", fileKey: "dedup_memory_mb", range: 1...65_536) {
            $0.dedupMemoryMegabytes = $1
        },
        WholeNumberSetting(environment: "PUSHGW_REQUEST_DEADLINE_SECONDS", fileKey: "request_deadline_seconds", range: 1...600) {
            $0.requestDeadline = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_MAX_CONNECTIONS", fileKey: "max_connections", range: 1...65_536) {
            $0.maxConnections = $1
        },
        WholeNumberSetting(environment: "PUSHGW_MAX_CONNECTIONS_PER_ADDRESS", fileKey: "max_connections_per_address", range: 0...65_536) {
            $0.maxConnectionsPerAddress = $1
        },
        WholeNumberSetting(environment: "PUSHGW_SHUTDOWN_DELAY_SECONDS", fileKey: "shutdown_delay_seconds", range: 0...300) {
            $0.shutdownDelay = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_SHUTDOWN_DRAIN_SECONDS", fileKey: "shutdown_drain_seconds", range: 1...600) {
            $0.shutdownDrain = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_AVATAR_MAX_KB", fileKey: "avatar.max_kb", range: 1...16_384) {
            $0.avatar.maxKilobytes = $1
        },
        WholeNumberSetting(environment: "PUSHGW_AVATAR_TIMEOUT_MS", fileKey: "avatar.timeout_ms", range: 100...30_000) {
            $0.avatar.timeout = .milliseconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_AVATAR_CACHE_ENTRIES", fileKey: "avatar.cache_entries", range: 0...1_000_000) {
            $0.avatar.cacheEntries = $1
        },
        WholeNumberSetting(environment: "PUSHGW_AVATAR_CACHE_SECONDS", fileKey: "avatar.cache_seconds", range: 1...86_400) {
            $0.avatar.cacheTTL = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_AVATAR_FETCH_THREADS", fileKey: "avatar.fetch_threads", range: 1...64) {
            $0.avatar.fetchThreads = $1
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_CONNECT_TIMEOUT_MS", fileKey: "redis.connect_timeout_ms", range: 100...60_000) {
            $0.redis.connectTimeout = .milliseconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_COMMAND_TIMEOUT_MS", fileKey: "redis.command_timeout_ms", range: 10...60_000) {
            $0.redis.commandTimeout = .milliseconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_QUEUE_VISIBILITY_SECONDS", fileKey: "redis.queue_visibility_seconds",
                           range: 1...86_400) {
            $0.redis.queueVisibilityTimeout = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_QUEUE_MAX_LENGTH", fileKey: "redis.queue_max_length", range: 1...100_000_000) {
            $0.redis.queueMaximumLength = $1
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_QUEUE_RETENTION_SECONDS", fileKey: "redis.queue_retention_seconds",
                           range: 60...2_592_000) {
            $0.redis.queueRetention = .seconds($1)
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_QUEUE_MAX_DELIVERIES", fileKey: "redis.queue_max_deliveries", range: 1...100) {
            $0.redis.queueMaximumDeliveries = $1
        },
        WholeNumberSetting(environment: "PUSHGW_REDIS_QUEUE_DEAD_CONSUMER_SECONDS", fileKey: "redis.queue_dead_consumer_seconds",
                           range: 60...2_592_000) {
            $0.redis.queueDeadConsumerAge = .seconds($1)
        },
    ]

    /// The file key inside its object: `max_kb` for `avatar.max_kb`.
    var keyInObject: String { fileKey.split(separator: ".").last.map(String.init) ?? fileKey }

    /// The object of the file the key is inside (`avatar`, `redis`); nil at the top level.
    var object: String? { fileKey.contains(".") ? fileKey.split(separator: ".").first.map(String.init) : nil }

    /// "`low` to `high`: ", the start of the setting's `--help` line.
    static func rangeText(of environment: String) -> String? {
        all.first { $0.environment == environment }.map { "\($0.range.lowerBound) to \($0.range.upperBound): " }
    }
}
