import Foundation
import GatewayService
import PayloadBuilder
import XCTest

/// M3: one configuration format. The README's example is a file the
/// service accepts; `pushgw render --config` reads the service's file
/// (offline, without its secrets), and the pure `RenderConfig(json:)`
/// accepts the same keys and renders as the service would.
final class ConfigurationFileFormatTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The first ```json block after the README's "Configuration file" heading.
    private func readmeExample() throws -> [UInt8] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.range(of: "### Configuration file"), "README has a configuration file section")
        let start = try XCTUnwrap(readme.range(of: "```json\n", range: section.upperBound..<readme.endIndex))
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        return Array(readme[start.upperBound..<end.lowerBound].utf8)
    }

    func testTheReadmesExampleIsAFileTheServiceAccepts() throws {
        let example = try readmeExample()
        // The service reads every file the example names: give each one plausible contents.
        let loader = ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/pushgw/pushgw.json"], readFile: { path throws(FileReadError) in
            if path == "/etc/pushgw/pushgw.json" { return example }
            if path.hasSuffix(".p8") { return Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8) }
            if path.hasSuffix(".json") { return Array(#"{"project_id":"example-project"}"#.utf8) }
            if path.hasSuffix(".pem") { return Array("-----BEGIN CERTIFICATE-----\n...\n".utf8) }
            return Array("0123456789abcdef0123456789abcdef\n".utf8)
        })
        let configuration = try loader.load()
        XCTAssertFalse(configuration.apps.isEmpty)
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .providers)
    }

    func testRenderReadsTheServicesFileWithoutItsSecrets() throws {
        let example = try readmeExample()
        let loader = ConfigurationLoader(environment: [:], readFile: { path throws(FileReadError) in
            guard path == "/etc/pushgw/pushgw.json" else { throw .permissionDenied }
            return example
        })
        let configuration = try loader.load(configFile: "/etc/pushgw/pushgw.json", use: .offlineRender)
        let fromLoader = try configuration.renderConfig()
        let pure = try RenderConfig(json: example)
        XCTAssertEqual(fromLoader.apps.map(\.name), pure.apps.map(\.name))
        XCTAssertEqual(fromLoader.apps.map { $0.apns?.topic }, pure.apps.map { $0.apns?.topic })
        XCTAssertEqual(fromLoader.apps.map { $0.apns?.baseURL }, pure.apps.map { $0.apns?.baseURL })
        XCTAssertEqual(fromLoader.apps.map { $0.fcm?.sendURL }, pure.apps.map { $0.fcm?.sendURL })
        XCTAssertEqual(fromLoader.defaultLocale, pure.defaultLocale)
        XCTAssertEqual(fromLoader.selfSenderIDs, pure.selfSenderIDs)
    }

    /// `pushgw render --config CASE.config.json --now 1767225600 CASE.event.json`
    /// reproduces every golden case: the loader (offline, as the command
    /// reads it) and the golden test's pure reader give the same answer, byte
    /// for byte. The fixtures' files hold no credentials, which an offline
    /// render does not need (it refused four of them before).
    func testRenderWithTheServicesLoaderReproducesEveryGoldenCase() throws {
        let directory = GoldenFixtures.directory
        let configs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".config.json") }.sorted()
        XCTAssertGreaterThanOrEqual(configs.count, 4)
        for name in configs {
            let caseName = String(name.dropLast(".config.json".count))
            let configPath = directory.appendingPathComponent(name).path
            let configuration = try ConfigurationLoader(environment: [:]).load(configFile: configPath, use: .offlineRender)
            let fromLoader = try configuration.renderConfig()
            let pure = try RenderConfig(json: Array(try Data(contentsOf: URL(fileURLWithPath: configPath))))
            let body = Array(try Data(contentsOf: directory.appendingPathComponent("\(caseName).event.json")))
            func answer(_ config: RenderConfig) throws -> [UInt8] {
                let (event, app) = try EventDecoder(config: config).decode(body)
                let rendered = try EventRenderer(config: config)
                    .render(event, app: app, avatar: AvatarState(unresolvedURL: event.sender.avatarURL), now: 1_767_225_600)
                return RenderReport.json(rendered, pretty: true)
            }
            XCTAssertEqual(try answer(fromLoader), try answer(pure), caseName)
        }
    }

    func testThePureReaderAcceptsEveryKeyOfTheServicesFile() throws {
        let file = """
            {"listen": "127.0.0.1:8080", "bearer_tokens_file": "t", "metrics_token_file": "m", "insecure_no_auth": false,
             "dedup_window_seconds": 60, "request_deadline_seconds": 30, "dedup_capacity": 100, "default_locale": "fr",
             "self_sender_ids": [], "log_level": "info", "avatar": {"allow_http": false},
             "shutdown_delay_seconds": 5, "shutdown_drain_seconds": 10, "max_connections": 1024, "max_connections_per_address": 0,
             "dedup_memory_mb": 64,
             "apps": [{"name": "a", "data_keys": null,
                       "apns": {"key_file": "k.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "topic": "com.a",
                                "environment": "sandbox", "base_url": "https://127.0.0.1:1", "ca_file": "ca.pem", "connections": 2,
                                "token_refresh_minutes": 30},
                       "fcm": {"service_account_file": "sa.json", "project_id": "p", "base_url": "https://127.0.0.1:2",
                               "ca_file": "ca.pem", "connections": 2}}]}
            """
        let config = try RenderConfig(json: Array(file.utf8))
        XCTAssertEqual(config.apps.first?.apns?.topic, "com.a")
        XCTAssertEqual(config.defaultLocale, "fr")
    }
}
