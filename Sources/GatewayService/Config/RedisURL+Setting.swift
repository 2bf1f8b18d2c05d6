public import RedisClient

extension RedisURL {
    /// Parses the shared store's URL from the setting named `setting`
    /// (`PUSHGW_REDIS_URL` or `redis.url`): the refusal names the setting and
    /// the problem, never the value (it may hold a password).
    public init(_ text: String, setting: String) throws(ServiceError) {
        do throws(RedisURLError) {
            try self.init(text)
        } catch {
            throw ServiceError(setting: setting, "\(error) (the value is not shown: it may hold a password); "
                + "use redis://[user:password@]host[:port][/database], or rediss:// for TLS")
        }
    }
}
