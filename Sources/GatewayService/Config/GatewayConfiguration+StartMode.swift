/// What `pushgw` runs against: the configured providers, or the built-in
/// demo simulators.
public enum StartMode: Sendable, Equatable {
    case providers
    case demo
}

extension GatewayConfiguration {
    /// True when no app is configured: nothing provider-related was set in
    /// the environment (`PUSHGW_APNS_*`, `PUSHGW_FCM_*`, `PUSHGW_DATA_KEYS`,
    /// `PUSHGW_APP_NAME`) and the file has no `apps` (the loader refuses an
    /// app without usable credentials, so a configured app always has some).
    public var hasNoProviderSettings: Bool { apps.isEmpty }

    /// Decides whether the built-in simulators stand in for the providers.
    /// They never replace a production configuration by accident: the demo
    /// runs when `--demo` is given (`demoRequested`), or when nothing
    /// provider-related is configured and the API listens on loopback.
    /// Nothing configured on another address refuses the start.
    public func startMode(demoRequested: Bool) throws(ServiceError) -> StartMode {
        if demoRequested { return .demo }
        if !hasNoProviderSettings { return .providers }
        guard listensOnLoopback else {
            throw ServiceError(setting: "providers", "no provider credentials configured: set PUSHGW_APNS_KEY_FILE, PUSHGW_APNS_KEY_ID, "
                + "PUSHGW_APNS_TEAM_ID and PUSHGW_APNS_TOPIC, or PUSHGW_FCM_SERVICE_ACCOUNT_FILE (or apps in the configuration file); "
                + "the built-in demo simulators run on their own only on a loopback address (\(listenSetting) is \(listenAddress)), "
                + "or with --demo")
        }
        return .demo
    }
}
