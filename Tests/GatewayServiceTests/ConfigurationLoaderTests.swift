import Foundation
import PushGWDemo
import GatewayService
@testable import GatewayHTTP
import PayloadBuilder
import XCTest

/// Configuration from the environment and the JSON file, with errors that
/// name the setting. Files are served from a dictionary, not the disk.
final class ConfigurationLoaderTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/run/tokens": Array("# API tokens\n0123456789abcdef0123\nfedcba9876543210fedc\n".utf8),
        "/run/short": Array("short\n".utf8),
        "/run/commented": Array("0123456789abcdef0123 # the CI's token\n".utf8),
        "/run/key.p8": Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8),
        "/run/sa.json": Array(#"{"type":"service_account","project_id":"chat-prod","client_email":"x@y"}"#.utf8),
        "/run/broken-sa.json": Array(#"{"type":"service_account","project_id":"#.utf8),
        "/etc/pushgw.json": Array("""
            {"listen": "0.0.0.0:9090", "bearer_tokens_file": "/run/tokens", "dedup_window_seconds": 60,
             "self_sender_ids": ["owner"],
             "apps": [{"name": "chat", "apns": {"key_file": "/run/key.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
                                                "topic": "com.example.chat", "environment": "sandbox"},
                       "fcm": {"service_account_file": "/run/sa.json"},
                       "data_keys": {"ps_thread_id": "conversationId"}}]}
            """.utf8),
    ]

    private func loader(_ environment: [String: String]) -> ConfigurationLoader {
        ConfigurationLoader(environment: environment, files: files)
    }

    private func expectError(_ environment: [String: String], setting: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try loader(environment).load()
            XCTFail("expected an error about \(setting)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.setting, setting, "\(error)", file: file, line: line)
            XCTAssertFalse(error.message.isEmpty, file: file, line: line)
        }
    }

    /// The avatar allow-list takes host names, `*.domain`, IPv4 and
    /// bracketed IPv6; an entry that could never match (a URL, a port, a
    /// bare IPv6 address) or an empty list (which allowed every host) is an
    /// error naming the setting (regression: both were accepted).
    func testTheAvatarAllowListIsCheckedEntryByEntry() throws {
        let good = try loader(["PUSHGW_AVATAR_ALLOWED_HOSTS": "cdn.example.com, *.example.org,192.0.2.7,[2001:db8::7],localhost"]).load()
        XCTAssertEqual(good.avatar.allowedHosts, ["cdn.example.com", "*.example.org", "192.0.2.7", "[2001:db8::7]", "localhost"])
        // (An empty variable is unset, as every setting's: any public host.)
        for bad in [",", "cdn.example.com,", "https://cdn.example.com/", "cdn.example.com:443", "::1", "*.", "a..b", "host name",
                    "[:::]", "[192.0.2.7]", "[fe80::1%eth0]"] {
            expectError(["PUSHGW_AVATAR_ALLOWED_HOSTS": bad], setting: "PUSHGW_AVATAR_ALLOWED_HOSTS")
        }
        for bad in [#"[]"#, #"["https://cdn.example.com"]"#, #"[""]"#] {
            let files = ["/etc/avatar.json": Array(#"{"avatar": {"allowed_hosts": \#(bad)}}"#.utf8)]
            XCTAssertThrowsError(try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/avatar.json"], files: files).load(),
                                 bad) { error in
                XCTAssertEqual((error as? ServiceError)?.setting, "avatar.allowed_hosts", "\(error)")
            }
        }
    }

    func testDefaultsNeedTheDemoProviders() throws {
        let configuration = try loader([:]).load()
        XCTAssertEqual(configuration.listenAddress, "127.0.0.1")
        XCTAssertEqual(configuration.listenPort, 8080)
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .demo)
        XCTAssertEqual(configuration.bearerTokens, [])
    }

    func testTheFileDescribesAppsAndSecretsComeFromFiles() throws {
        let configuration = try loader(["PUSHGW_CONFIG_FILE": "/etc/pushgw.json"]).load()
        XCTAssertEqual(configuration.listenAddress, "0.0.0.0")
        XCTAssertEqual(configuration.listenPort, 9090)
        XCTAssertEqual(configuration.bearerTokens, ["0123456789abcdef0123", "fedcba9876543210fedc"])
        XCTAssertEqual(configuration.dedupWindow, .seconds(60))
        XCTAssertEqual(configuration.selfSenderIDs, ["owner"])
        let app = try XCTUnwrap(configuration.apps.first)
        XCTAssertEqual(app.name, "chat")
        XCTAssertEqual(app.apns?.baseURL, APNsTarget.sandbox)
        XCTAssertEqual(app.fcm?.projectID, "chat-prod", "the project comes from the service account")
        XCTAssertEqual(app.dataKeys.wireName(.threadID), "conversationId")
        XCTAssertEqual(try configuration.startMode(demoRequested: false), .providers)
        let render = try configuration.renderConfig()
        XCTAssertEqual(render.apps.first?.fcm?.sendURL, "https://fcm.googleapis.com/v1/projects/chat-prod/messages:send")
    }

    func testTheEnvironmentWinsOverTheFile() throws {
        let configuration = try loader(["PUSHGW_CONFIG_FILE": "/etc/pushgw.json", "PUSHGW_LISTEN": "127.0.0.1:7000",
                                        "PUSHGW_DEDUP_WINDOW_SECONDS": "5"]).load()
        XCTAssertEqual(configuration.listenPort, 7000)
        XCTAssertEqual(configuration.dedupWindow, .seconds(5))
    }

    /// The shutdown delay and drain: defaults, the file, the environment
    /// over the file, and their ranges named.
    func testTheShutdownDelayAndDrainComeFromTheFileOrTheEnvironment() throws {
        let defaults = try loader([:]).load()
        XCTAssertEqual(defaults.shutdownDelay, .zero)
        XCTAssertEqual(defaults.shutdownDrain, .seconds(10))
        let files = files.merging(["/etc/shutdown.json": Array(#"{"shutdown_delay_seconds": 5, "shutdown_drain_seconds": 20}"#.utf8)]) { $1 }
        let fromFile = try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/shutdown.json"], files: files).load()
        XCTAssertEqual(fromFile.shutdownDelay, .seconds(5))
        XCTAssertEqual(fromFile.shutdownDrain, .seconds(20))
        let overridden = try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/shutdown.json",
                                                               "PUSHGW_SHUTDOWN_DELAY_SECONDS": "0", "PUSHGW_SHUTDOWN_DRAIN_SECONDS": "3"],
                                                 files: files).load()
        XCTAssertEqual(overridden.shutdownDelay, .zero)
        XCTAssertEqual(overridden.shutdownDrain, .seconds(3))
        expectError(["PUSHGW_SHUTDOWN_DELAY_SECONDS": "301"], setting: "PUSHGW_SHUTDOWN_DELAY_SECONDS")
        expectError(["PUSHGW_SHUTDOWN_DRAIN_SECONDS": "0"], setting: "PUSHGW_SHUTDOWN_DRAIN_SECONDS")
        let badFile = files.merging(["/etc/bad.json": Array(#"{"shutdown_drain_seconds": -1}"#.utf8)]) { $1 }
        XCTAssertThrowsError(try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/bad.json"], files: badFile).load()) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "shutdown_drain_seconds", "\(error)")
        }
    }

    func testConnectionAndMemoryLimitsComeFromTheFileOrTheEnvironment() throws {
        let defaults = try loader([:]).load()
        XCTAssertEqual(defaults.maxConnections, 1024)
        XCTAssertEqual(defaults.maxConnectionsPerAddress, 0, "no per-address limit: behind a proxy all clients share one")
        let files = files.merging(["/etc/limits.json": Array(#"{"max_connections": 4000, "max_connections_per_address": 64}"#.utf8)]) { $1 }
        let fromFile = try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/limits.json"], files: files).load()
        XCTAssertEqual(fromFile.maxConnections, 4000)
        XCTAssertEqual(fromFile.maxConnectionsPerAddress, 64)
        let overridden = try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/limits.json", "PUSHGW_MAX_CONNECTIONS_PER_ADDRESS": "0"],
                                                 files: files).load()
        XCTAssertEqual(overridden.maxConnectionsPerAddress, 0)
        expectError(["PUSHGW_MAX_CONNECTIONS": "0"], setting: "PUSHGW_MAX_CONNECTIONS")
        XCTAssertEqual(defaults.dedupMemoryMegabytes, 64)
        XCTAssertEqual(try loader(["PUSHGW_DEDUP_MEMORY_MB": "8"]).load().dedupMemoryMegabytes, 8)
        expectError(["PUSHGW_DEDUP_MEMORY_MB": "0"], setting: "PUSHGW_DEDUP_MEMORY_MB")
        expectError(["PUSHGW_MAX_CONNECTIONS_PER_ADDRESS": "many"], setting: "PUSHGW_MAX_CONNECTIONS_PER_ADDRESS")
    }

    /// Every whole-number setting: its bounds are taken and the values just
    /// outside are refused naming it, from the environment and from the
    /// file alike, and `--help` shows the same bounds.
    func testEveryWholeNumberSettingHasOneRangeInTheEnvironmentTheFileAndTheHelp() throws {
        let settings: [(environment: String, fileKey: String, range: ClosedRange<Int>)] = [
            ("PUSHGW_DEDUP_WINDOW_SECONDS", "dedup_window_seconds", 0...86_400),
            ("PUSHGW_DEDUP_CAPACITY", "dedup_capacity", 1...10_000_000),
            ("PUSHGW_DEDUP_MEMORY_MB", "dedup_memory_mb", 1...65_536),
            ("PUSHGW_REQUEST_DEADLINE_SECONDS", "request_deadline_seconds", 1...600),
            ("PUSHGW_MAX_CONNECTIONS", "max_connections", 1...65_536),
            ("PUSHGW_MAX_CONNECTIONS_PER_ADDRESS", "max_connections_per_address", 0...65_536),
            ("PUSHGW_SHUTDOWN_DELAY_SECONDS", "shutdown_delay_seconds", 0...300),
            ("PUSHGW_SHUTDOWN_DRAIN_SECONDS", "shutdown_drain_seconds", 1...600),
        ]
        for (environment, fileKey, range) in settings {
            for good in [range.lowerBound, range.upperBound] {
                XCTAssertNoThrow(try loader([environment: String(good)]).load(), "\(environment)=\(good)")
                let file = files.merging(["/etc/n.json": Array("{\"\(fileKey)\": \(good)}".utf8)]) { $1 }
                XCTAssertNoThrow(try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/n.json"], files: file).load(), "\(fileKey)")
            }
            for bad in [range.lowerBound - 1, range.upperBound + 1] {
                expectError([environment: String(bad)], setting: environment)
                let file = files.merging(["/etc/n.json": Array("{\"\(fileKey)\": \(bad)}".utf8)]) { $1 }
                XCTAssertThrowsError(try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/n.json"], files: file).load()) { error in
                    XCTAssertEqual((error as? ServiceError)?.setting, fileKey, "\(error)")
                }
            }
            let help = SettingCatalog.helpText.components(separatedBy: "\n")
            let line = help.firstIndex { $0.trimmingCharacters(in: .whitespaces) == environment }.map { help[$0 + 2] } ?? ""
            XCTAssertTrue(line.hasPrefix("      \(range.lowerBound) to \(range.upperBound): "), "\(environment): \(line)")
        }
    }

    func testOneAppFromTheEnvironment() throws {
        let configuration = try loader([
            "PUSHGW_APNS_KEY_FILE": "/run/key.p8", "PUSHGW_APNS_KEY_ID": "ABC123DEFG", "PUSHGW_APNS_TEAM_ID": "DEF123GHIJ",
            "PUSHGW_APNS_TOPIC": "com.example.chat", "PUSHGW_APNS_BASE_URL": "https://127.0.0.1:8443",
            "PUSHGW_DATA_KEYS": #"{"avatar_url": null}"#, "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens",
        ]).load()
        let app = try XCTUnwrap(configuration.apps.first)
        XCTAssertEqual(app.name, "default")
        XCTAssertEqual(app.apns?.baseURL, "https://127.0.0.1:8443")
        XCTAssertNil(app.dataKeys.wireName(.avatarURL))
    }

    func testBearerTokensFromTheEnvironmentAreCheckedLikeTheFile() throws {
        expectError(["PUSHGW_BEARER_TOKENS": ", ,"], setting: "PUSHGW_BEARER_TOKENS")
        expectError(["PUSHGW_BEARER_TOKENS": "0123456789abcdef0123,short"], setting: "PUSHGW_BEARER_TOKENS")
        // A comment after a token made the whole line, spaces included, the token:
        // no client could send it, and the operator was not told.
        expectError(["PUSHGW_BEARER_TOKENS_FILE": "/run/commented"], setting: "PUSHGW_BEARER_TOKENS_FILE")
        expectError(["PUSHGW_BEARER_TOKENS": "0123456789abcdef\u{7F}0123"], setting: "PUSHGW_BEARER_TOKENS")
        expectError(["PUSHGW_BEARER_TOKENS": "0123456789abcdéf0123"], setting: "PUSHGW_BEARER_TOKENS")
        // The advice fits the form: commas for the list, lines for the file.
        for (environment, advice, notAdvice) in [(["PUSHGW_BEARER_TOKENS": "0123456789abcdef 0123456789abcdef"], "commas", "line"),
                                                 (["PUSHGW_BEARER_TOKENS_FILE": "/run/commented"], "line", "commas")] {
            XCTAssertThrowsError(try loader(environment).load()) { error in
                let message = (error as? ServiceError)?.message ?? ""
                XCTAssertTrue(message.contains(advice) && !message.contains(notAdvice), message)
            }
        }
        let configuration = try loader(["PUSHGW_BEARER_TOKENS": " 0123456789abcdef0123 , ,fedcba9876543210fedc"]).load()
        XCTAssertEqual(configuration.bearerTokens, ["0123456789abcdef0123", "fedcba9876543210fedc"])
    }

    func testProviderConnectionsDefaultToOnePerCoreAndAtLeastTwo() throws {
        let onePerCore = min(64, max(2, ProcessInfo.processInfo.activeProcessorCount))
        let fromFile = try XCTUnwrap(loader(["PUSHGW_CONFIG_FILE": "/etc/pushgw.json"]).load().apps.first)
        XCTAssertEqual(fromFile.apns?.connections, onePerCore)
        XCTAssertEqual(fromFile.fcm?.connections, onePerCore)
        let environment = [
            "PUSHGW_APNS_KEY_FILE": "/run/key.p8", "PUSHGW_APNS_KEY_ID": "ABC123DEFG", "PUSHGW_APNS_TEAM_ID": "DEF123GHIJ",
            "PUSHGW_APNS_TOPIC": "com.example.chat", "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens",
        ]
        XCTAssertEqual(try loader(environment).load().apps.first?.apns?.connections, onePerCore)
        let configured = try loader(environment.merging(["PUSHGW_APNS_CONNECTIONS": "5"]) { $1 }).load()
        XCTAssertEqual(configured.apps.first?.apns?.connections, 5)
    }

    func testEveryBadSettingIsNamed() {
        expectError(["PUSHGW_LISTEN": "8080"], setting: "PUSHGW_LISTEN")
        expectError(["PUSHGW_BEARER_TOKENS_FILE": "/run/missing"], setting: "PUSHGW_BEARER_TOKENS_FILE")
        expectError(["PUSHGW_BEARER_TOKENS_FILE": "/run/short"], setting: "PUSHGW_BEARER_TOKENS_FILE")
        expectError(["PUSHGW_DEDUP_WINDOW_SECONDS": "ten"], setting: "PUSHGW_DEDUP_WINDOW_SECONDS")
        expectError(["PUSHGW_INSECURE_NO_AUTH": "maybe"], setting: "PUSHGW_INSECURE_NO_AUTH")
        expectError(["PUSHGW_LOG_LEVEL": "loud"], setting: "PUSHGW_LOG_LEVEL")
        expectError(["PUSHGW_APNS_TOPIC": "com.example"], setting: "PUSHGW_APNS_KEY_FILE")
        expectError(["PUSHGW_APNS_KEY_FILE": "/run/key.p8", "PUSHGW_APNS_KEY_ID": "short", "PUSHGW_APNS_TEAM_ID": "DEF123GHIJ",
                     "PUSHGW_APNS_TOPIC": "t"], setting: "PUSHGW_APNS_KEY_ID")
        expectError(["PUSHGW_APNS_KEY_FILE": "/run/key.p8", "PUSHGW_APNS_KEY_ID": "ABC123DEFG", "PUSHGW_APNS_TEAM_ID": "DEF123GHIJ",
                     "PUSHGW_APNS_TOPIC": "t", "PUSHGW_APNS_ENVIRONMENT": "staging"], setting: "PUSHGW_APNS_ENVIRONMENT")
        expectError(["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/missing.json"], setting: "PUSHGW_FCM_SERVICE_ACCOUNT_FILE")
        expectError(["PUSHGW_DATA_KEYS": #"{"ps_thread_id": "from"}"#, "PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json"],
                    setting: "PUSHGW_DATA_KEYS.ps_thread_id")
        expectError(["PUSHGW_CONFIG_FILE": "/nowhere.json"], setting: "PUSHGW_CONFIG_FILE")
    }

    /// A secret put in a `*_FILE` setting by mistake is not echoed back in
    /// the error; a path is, to help the operator.
    func testAnUnreadableFileSettingShowsAPathButNeverASecret() {
        let secret = String(repeating: "d3adb33f", count: 8)
        let keyLine = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg+/abc"
        for (setting, value) in [("PUSHGW_BEARER_TOKENS_FILE", secret), ("PUSHGW_APNS_KEY_FILE", keyLine)] {
            var environment = ["PUSHGW_BEARER_TOKENS": "a-long-enough-bearer-token-0123456789"]
            environment[setting] = value
            if setting == "PUSHGW_APNS_KEY_FILE" {
                environment.merge(["PUSHGW_APNS_KEY_ID": "KEYID12345", "PUSHGW_APNS_TEAM_ID": "TEAM123456",
                                   "PUSHGW_APNS_TOPIC": "com.example.chat"]) { $1 }
            }
            do {
                _ = try loader(environment).load()
                XCTFail("\(setting): an unreadable file was accepted")
            } catch {
                XCTAssertFalse(error.description.contains(value), "\(setting): the value was echoed: \(error)")
                XCTAssertTrue(error.message.contains("not shown"), "\(error)")
            }
        }
        do {
            _ = try loader(["PUSHGW_BEARER_TOKENS_FILE": "/etc/pushgw/missing-tokens"]).load()
            XCTFail("an unreadable file was accepted")
        } catch {
            XCTAssertEqual(error.message, "cannot read /etc/pushgw/missing-tokens: no such file")
        }
    }

    /// A key file that reads but holds no usable key is blamed on the
    /// setting that named it, here the environment variable.
    func testAnUnusableKeyIsBlamedOnTheSettingThatNamedIt() throws {
        let keyFile = NSTemporaryDirectory() + "pushgw-bad-key-\(UUID().uuidString).p8"
        try Data("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let configuration = try ConfigurationLoader(environment: [
            "PUSHGW_BEARER_TOKENS": "a-long-enough-bearer-token-0123456789", "PUSHGW_LISTEN": "127.0.0.1:0",
            "PUSHGW_APNS_KEY_FILE": keyFile, "PUSHGW_APNS_KEY_ID": "KEYID12345", "PUSHGW_APNS_TEAM_ID": "TEAM123456",
            "PUSHGW_APNS_TOPIC": "com.example.chat",
        ]).load()
        do {
            _ = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
            XCTFail("a gateway started with an unusable APNs key")
        } catch {
            XCTAssertEqual(error.setting, "PUSHGW_APNS_KEY_FILE", "\(error)")
        }
    }

    func testABrokenServiceAccountFileIsCalledBrokenNotMissingAField() {
        do {
            _ = try loader(["PUSHGW_BEARER_TOKENS": "a-long-enough-bearer-token-0123456789",
                            "PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/broken-sa.json"]).load()
            XCTFail("a broken service-account file was accepted")
        } catch {
            XCTAssertEqual(error.setting, "PUSHGW_FCM_SERVICE_ACCOUNT_FILE")
            XCTAssertTrue(error.message.contains("not valid JSON"), error.message)
        }
    }

    func testUnknownFileSettingsAreRefusedByName() {
        let files = ["/c.json": Array(#"{"apps": [{"name": "a", "apns": {"key_fiel": "/run/key.p8"}}]}"#.utf8)]
        do {
            _ = try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/c.json"], files: files).load()
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.setting, "apps[0].apns.key_fiel")
        }
    }

    func testTheHelpListsEverySetting() {
        for setting in SettingCatalog.all {
            XCTAssertTrue(SettingCatalog.helpText.contains(setting.environment), setting.environment)
        }
    }

    func testTheGatewayRefusesToStartWithoutTokensUnlessInsecureOnLoopback() throws {
        var configuration = GatewayConfiguration()
        configuration.listenPort = 0
        XCTAssertThrowsError(try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_BEARER_TOKENS_FILE")
        }
        configuration.insecureNoAuth = true
        configuration.listenAddress = "0.0.0.0"
        XCTAssertThrowsError(try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_INSECURE_NO_AUTH")
        }
        configuration.listenAddress = "127.0.0.1"
        configuration.apps = [GatewayConfiguration.AppSettings(name: "demo")]
        let gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
        XCTAssertGreaterThan(gateway.server.port, 0)
        gateway.server.stop()
    }
}
