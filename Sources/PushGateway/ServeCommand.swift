import Foundation
import GatewayService

/// `pushgw [serve]`: loads the configuration, starts the gateway (with the
/// built-in simulators when no provider credentials are configured), and
/// stops gracefully on SIGTERM or SIGINT.
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
        if insecure { configuration.insecureNoAuth = true }
        let logger = Logger(minimumLevel: configuration.logLevel)

        var demo: DemoProviders?
        if forceDemo || configuration.needsDemoProviders {
            do {
                let providers = try DemoProviders()
                providers.configure(&configuration)
                demo = providers
            } catch {
                return fail("\(error)")
            }
            if configuration.bearerTokens.isEmpty && !configuration.insecureNoAuth {
                configuration.bearerTokens = [randomToken()]
            }
        }

        let gateway: Gateway
        do {
            gateway = try Gateway(configuration: configuration, logger: logger)
        } catch {
            demo?.stop()
            return fail("\(error)")
        }
        let address = "http://\(configuration.listenAddress):\(gateway.server.port)"
        logger.info("pushgw listening", [("address", address), ("apps", configuration.apps.map(\.name).joined(separator: ",")),
                                          ("demo", demo == nil ? "false" : "true")])
        if let demo {
            printDemoBanner(address: address, token: configuration.bearerTokens.first, apns: demo.apns.url, fcm: demo.fcm.url)
        }

        let signals = await Termination.wait { number in
            logger.warning("pushgw stopping at once: a second signal during the drain", [("signal", String(number))])
            Termination.exitNow("pushgw: stopped at once (second signal); requests in progress were not answered")
        }
        logger.info("pushgw stopping: draining requests in progress")
        await gateway.shutdown(drain: .seconds(10))
        demo?.stop()
        logger.info("pushgw stopped")
        withExtendedLifetime(signals) {}
        return 0
    }

    private static func printDemoBanner(address: String, token: String?, apns: String, fcm: String) {
        let auth = token.map { " -H 'Authorization: Bearer \($0)'" } ?? ""
        print("""

        pushgw is running WITHOUT provider credentials: requests go to the built-in strict
        simulators, APNs at \(apns) and FCM (with its OAuth token endpoint) at \(fcm),
        with throwaway keys and certificates.
        Send the seed event and watch the per-device outcome:

          curl -s\(auth) --data-binary @fixtures/payloads/seed-chat-sdk.event.json \(address)/v1/notify
          curl -s\(auth) --data-binary @fixtures/payloads/seed-chat-sdk.event.json \(address)/v1/render
          curl -s \(address)/metrics

        Configure real credentials with PUSHGW_APNS_* / PUSHGW_FCM_* (pushgw --help). Ctrl-C stops.

        """)
        fflush(nil)
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("pushgw: \(message)\n".utf8))
        return 2
    }
}
