import Foundation
import GatewayService
import PayloadBuilder

/// `pushgw render EVENT.json`: decode, validate and render one event with no
/// network, printing the `/v1/render` answer (or the JSON error). The
/// configuration is the service's, from the same file (`--config`) and
/// environment, loaded for an offline render (no secret is read); with no
/// app configured, the demo app (`RenderConfig.demo()`).
enum RenderCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var eventPath: String?
        var configPath: String?
        var now = Int64(Date().timeIntervalSince1970)
        var pretty = true
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--config", "--now":
                guard index + 1 < arguments.count else { return usageError("\(argument) needs a value") }
                index += 1
                if argument == "--config" {
                    configPath = arguments[index]
                } else {
                    guard let seconds = Int64(arguments[index]), seconds >= 0 else {
                        return usageError("--now takes epoch seconds, e.g. 1767225600")
                    }
                    now = seconds
                }
            case "--compact":
                pretty = false
            case "--help", "-h":
                print(SettingCatalog.renderHelpText)
                return 0
            default:
                guard eventPath == nil, !argument.hasPrefix("--") || argument == "-" else {
                    return usageError("unexpected argument \"\(argument)\"")
                }
                eventPath = argument
            }
            index += 1
        }
        guard let eventPath else { return usageError("name the event file (or - for standard input)") }

        let config: RenderConfig
        do {
            let configuration = try ConfigurationLoader(environment: ProcessInfo.processInfo.environment)
                .load(configFile: configPath, use: .offlineRender)
            config = try configuration.apps.isEmpty
                ? RenderConfig(apps: RenderConfig.demo().apps, defaultLocale: configuration.defaultLocale,
                               selfSenderIDs: configuration.selfSenderIDs)
                : configuration.renderConfig()
        } catch {
            return usageError("configuration: \(error)")
        }
        let body: [UInt8]
        do {
            body = try readFile(eventPath)
        } catch {
            return usageError("cannot read \(eventPath): \(error)")
        }

        do {
            let (event, app) = try EventDecoder(config: config).decode(body)
            let rendered = try EventRenderer(config: config)
                .render(event, app: app, avatar: AvatarState(unresolvedURL: event.sender.avatarURL), now: now)
            FileDescriptorWriter.write(RenderReport.json(rendered, pretty: pretty) + (pretty ? [] : [0x0A]), to: STDOUT_FILENO)
            return 0
        } catch {
            FileDescriptorWriter.write(error.jsonBody + [0x0A], to: STDOUT_FILENO)
            return 1
        }
    }

    private static func readFile(_ path: String) throws(FileReadError) -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        return try FileReader.read(path)
    }

    private static func usageError(_ message: String) -> Int32 {
        FileDescriptorWriter.write(Array("pushgw render: \(message)\n".utf8), to: STDERR_FILENO)
        return 2
    }
}
