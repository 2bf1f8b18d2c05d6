import Foundation

/// What `pushgw` prints when it runs the built-in demo simulators: where
/// they are, and `curl` commands to try the gateway with. A token is printed
/// only when the demo generated it; a token the operator configured is
/// never printed, the commands say where it is instead.
public struct DemoBanner: Sendable {
    /// The API's base URL, IPv6 in brackets (`GatewayConfiguration.httpURL`).
    public var address: String
    public var apns: String
    public var fcm: String
    /// How requests authenticate.
    public var auth: Auth
    /// The seed event's path as the commands should name it.
    public var seedEvent: SeedEvent
    /// Where `/metrics`'s own token is configured, when it has one.
    public var metricsTokenSetting: String?
    /// The web push simulator's URL, when the demo runs one.
    public var webPush: String?
    /// The seed event with the simulated browser added (an absolute path),
    /// which the commands send instead of the seed when there is one.
    public var browserEvent: String?

    /// How the API is protected, which decides what the banner's commands carry.
    public enum Auth: Sendable, Equatable {
        /// The demo made this token up: print it.
        case generated(String)
        /// The operator configured tokens in this setting: never print them.
        case configured(setting: String)
        /// `--insecure-no-auth`: no header.
        case none
    }

    /// Where the seed event the banner's commands send was found, if anywhere.
    public enum SeedEvent: Sendable, Equatable {
        /// The fixture was found at this absolute path.
        case found(String)
        /// Not found: the commands use the repository-relative path.
        case notFound
    }

    /// The repository-relative path of the seed event.
    public static let seedRelativePath = "fixtures/payloads/seed-chat-sdk.event.json"

    /// `metricsTokenSetting`: where `/metrics`'s own token is configured,
    /// when it has one (the banner's command then sends `$METRICS_TOKEN`).
    public init(address: String, apns: String, fcm: String, auth: Auth, seedEvent: SeedEvent, metricsTokenSetting: String? = nil,
                webPush: String? = nil, browserEvent: String? = nil) {
        self.address = address
        self.apns = apns
        self.fcm = fcm
        self.auth = auth
        self.seedEvent = seedEvent
        self.metricsTokenSetting = metricsTokenSetting
        self.webPush = webPush
        self.browserEvent = browserEvent
    }


    /// Looks for the seed event under each folder in turn (the working
    /// directory, then the source checkout the binary was built from).
    public static func findSeedEvent(under folders: [String]) -> SeedEvent {
        for folder in folders {
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + seedRelativePath
            var isDirectory: ObjCBool = false
            if path.hasPrefix("/"), FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return .found(path)
            }
        }
        return .notFound
    }

    public var text: String {
        var header = ""
        switch auth {
        case let .generated(token): header = " -H 'Authorization: Bearer \(token)'"
        case .configured: header = " -H \"Authorization: Bearer $TOKEN\""
        case .none: break
        }
        var seed: String
        var notes: [String] = []
        switch seedEvent {
        case let .found(path): seed = Self.shellQuoted(path)
        case .notFound where browserEvent != nil: seed = ""
        case .notFound:
            seed = Self.seedRelativePath
            notes.append("Run these from the repository root (the seed event is \(Self.seedRelativePath) there).")
        }
        if case let .configured(setting) = auth {
            notes.append("Set TOKEN to one of your API tokens (the token in \(setting)); it is not printed.")
        }
        var what = "Send the seed event and watch the per-device outcome:"
        var simulators = "APNs at \(apns) and FCM (with its OAuth token endpoint) at \(fcm)"
        if let webPush {
            simulators = "APNs at \(apns), FCM (with its OAuth token endpoint) at \(fcm)\nand a browser's web push service at \(webPush)"
        }
        if let browserEvent {
            seed = Self.shellQuoted(browserEvent)
            what = "Send the seed event, with a simulated browser added to its phones, and watch\nthe per-device outcome:"
        }
        let metricsHeader = metricsTokenSetting == nil ? "" : " -H \"Authorization: Bearer $METRICS_TOKEN\""
        if let metricsTokenSetting {
            notes.append("Set METRICS_TOKEN to the /metrics token (the one in \(metricsTokenSetting)); it is not printed.")
        }
        return """

        pushgw is running the built-in DEMO: requests go to the strict provider
        simulators, \(simulators),
        with throwaway keys and certificates. Nothing leaves this machine.
        \(what)

          curl -s\(header) --data-binary @\(seed) \(address)/v1/notify
          curl -s\(header) --data-binary @\(seed) \(address)/v1/render
          curl -s\(metricsHeader) \(address)/metrics
        \(notes.isEmpty ? "" : "\n" + notes.map { "\($0)\n" }.joined())
        Configure real credentials with PUSHGW_APNS_* / PUSHGW_FCM_* (pushgw --help). Ctrl-C stops.

        """
    }

    /// `path` as one shell word (single-quoted when it needs it).
    static func shellQuoted(_ path: String) -> String {
        let plain = path.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2D, 0x2E, 0x2F, 0x5F].contains($0)
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
