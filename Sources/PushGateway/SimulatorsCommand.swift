import Foundation
import GatewayService
import PushGWDemo
import PushGWSync

/// `pushgw simulators [--env-file FILE]`: runs only the built-in provider
/// simulators of the demo (APNs, and FCM with its OAuth endpoint, throwaway
/// keys), in their own process, and prints the settings that point a gateway
/// at them, with a token file. A gateway started with those settings is configured exactly as
/// for real providers, so its memory and CPU are its own (the benchmarks
/// measure it this way).
enum SimulatorsCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var envFile: String?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--env-file":
                guard index + 1 < arguments.count else { return fail("--env-file needs a file") }
                envFile = arguments[index + 1]
                index += 1
            case "--help", "-h":
                print(SettingCatalog.simulatorsHelpText)
                return 0
            default:
                return fail("unknown argument \"\(arguments[index])\" (usage: pushgw simulators [--env-file FILE])")
            }
            index += 1
        }
        // The temporary folder once created: a stop at once still removes its throwaway keys.
        let folder = Locked<String?>(nil)
        let signals = Termination { _ in
            folder.withLock { path in path.map(DemoProviders.removeFolder(at:)) }
            Termination.exitNow("pushgw simulators: stopped at once (second signal)")
        }
        let providers: DemoProviders
        do {
            providers = try DemoProviders(folderCreated: { path in folder.withLock { $0 = path } })
        } catch {
            return fail("\(error)")
        }
        let lines = providers.simulatorsCommandEnvironment.map { "export \($0.name)=\($0.value)" }.joined(separator: "\n") + "\n"
        if let envFile {
            guard FileManager.default.createFile(atPath: envFile, contents: Data(lines.utf8), attributes: [.posixPermissions: 0o600]) else {
                providers.stop()
                return fail("cannot write \(envFile)")
            }
        }
        print("pushgw simulators: APNs at \(providers.apns.url), FCM at \(providers.fcm.url), web push at \(providers.webPush.url)"
            + " (a browser subscribed: endpoint \(providers.browser.endpoint), p256dh \(providers.browser.p256dh),"
            + " auth \(providers.browser.auth)). Start a gateway with:\n\(lines)"
            + "(the API token is in \(providers.tokensFile))")
        fflush(nil)
        await signals.first()
        providers.stop()
        withExtendedLifetime(signals) {}
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileDescriptorWriter.write(Array("pushgw simulators: \(message)\n".utf8), to: STDERR_FILENO)
        return 2
    }
}
