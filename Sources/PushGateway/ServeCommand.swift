import Foundation
import GatewayService
import PushGWDemo
import PushGWSync

/// `pushgw [serve]`: loads the configuration, starts the gateway, and stops
/// gracefully on SIGTERM or SIGINT. The built-in simulators stand in for the
/// providers only with `--demo`, or when nothing provider-related is
/// configured and the API listens on loopback (`GatewayConfiguration.startMode`).
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var configFile: String?
        var insecure = false
        var forceDemo = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--config":
                guard index + 1 < arguments.count else { return fail("--config needs a file") }
                configFile = arguments[index + 1]
                index += 1
            case "--insecure-no-auth": insecure = true
            case "--demo": forceDemo = true
            case "--help", "-h":
                print(SettingCatalog.helpText)
                return 0
            default: return fail("unknown argument \"\(arguments[index])\" (see pushgw --help)")
            }
            index += 1
        }

        var configuration: GatewayConfiguration
        do {
            configuration = try ConfigurationLoader(environment: ProcessInfo.processInfo.environment).load(configFile: configFile)
        } catch {
            return fail("configuration: \(error)")
        }
        if insecure {
            configuration.insecureNoAuth = true
            configuration.insecureNoAuthSetting = "--insecure-no-auth"
        }
        let logger = Logger(minimumLevel: configuration.logLevel)
        // Watching from here on: a signal while the gateway starts is taken
        // like one after (a graceful stop), not the default death.
        // The demo's temporary folder once created: a stop at once still removes its throwaway keys.
        let demoFolder = Locked<String?>(nil)
        let signals = Termination { number in
            logger.warning("pushgw stopping at once: a second signal during the drain", [("signal", String(number))])
            demoFolder.withLock { path in path.map(DemoProviders.removeFolder(at:)) }
            Termination.exitNow("pushgw: stopped at once (second signal); requests in progress were not answered")
        }

        let mode: StartMode
        do {
            mode = try configuration.startMode(demoRequested: forceDemo)
        } catch {
            return fail("configuration: \(error)")
        }
        var demo: DemoProviders?
        var auth = DemoBanner.Auth.none
        if mode == .demo {
            do {
                let providers = try DemoProviders(folderCreated: { path in demoFolder.withLock { $0 = path } })
                providers.configure(&configuration)
                demo = providers
            } catch {
                return fail("\(error)")
            }
            if let setting = configuration.bearerTokensSetting, !configuration.bearerTokens.isEmpty {
                auth = .configured(setting: setting)
            } else if !configuration.insecureNoAuth {
                let token = randomToken()
                configuration.bearerTokens = [token]
                auth = .generated(token)
            }
        }

        let gateway: Gateway
        do {
            gateway = try Gateway(configuration: configuration, logger: logger)
        } catch {
            demo?.stop()
            return fail("\(error)")
        }
        await gateway.prepareProviderTokens()
        let address = GatewayConfiguration.httpURL(address: configuration.listenAddress, port: gateway.server.port)
        logger.info("pushgw listening", [("address", address), ("apps", configuration.apps.map(\.name).joined(separator: ",")),
                                          ("demo", demo == nil ? "false" : "true"),
                                          ("dedup_store", configuration.redis.url?.redacted ?? "in-process"),
                                          ("proxy", configuration.proxy.proxy?.redacted ?? "none"),
                                          ("no_proxy", configuration.proxy.proxy == nil ? "" : configuration.noProxyText ?? "")])
        if configuration.insecureNoAuth, configuration.bearerTokens.isEmpty {
            logger.warning("pushgw runs without authentication: any local process can send and render",
                           [("setting", configuration.insecureNoAuthSetting), ("address", address)])
        } else if configuration.insecureNoAuth {
            logger.warning("ignored: API tokens are configured, so every request needs one of them",
                           [("setting", configuration.insecureNoAuthSetting)])
        }
        if let demo {
            // The working directory, then the checkout this binary was built from.
            let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path
            let seed = DemoBanner.findSeedEvent(under: [FileManager.default.currentDirectoryPath, checkout])
            // The seed event with the simulated browser added, so the demo shows a web push send too.
            var browserEvent: String?
            if case let .found(path) = seed, let bytes = FileManager.default.contents(atPath: path) {
                browserEvent = demo.writeEventWithBrowser(Array(bytes))
            }
            print(DemoBanner(address: address, apns: demo.apns.url, fcm: demo.fcm.url, auth: auth, seedEvent: seed,
                             metricsTokenSetting: configuration.metricsToken == nil ? nil : configuration.metricsTokenSetting,
                             webPush: demo.webPush.url, browserEvent: browserEvent).text)
            fflush(nil)
        }

        await signals.first()
        logger.info("pushgw stopping: /readyz answers 503; requests are served for the delay, then those in progress drain",
                    [("delay_seconds", String(configuration.shutdownDelay.components.seconds)),
                     ("drain_seconds", String(configuration.shutdownDrain.components.seconds))])
        await gateway.shutdown(delay: configuration.shutdownDelay, drain: configuration.shutdownDrain)
        demo?.stop()
        logger.info("pushgw stopped")
        withExtendedLifetime(signals) {}
        return 0
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }

    /// Why the gateway cannot start, as one JSON log line on standard
    /// error like every other line it writes (log shippers parse them all).
    private static func fail(_ message: String) -> Int32 {
        Logger(minimumLevel: .error).log(.error, "pushgw cannot start", [("detail", message)])
        return 2
    }
}
