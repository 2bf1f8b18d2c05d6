import GatewayService
import XCTest

/// H1: the built-in simulators never stand in for a production
/// configuration: missing, partial or misspelt provider settings refuse the
/// start, naming what is missing.
final class StartModeTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/run/tokens": Array("0123456789abcdef0123\n".utf8),
        "/run/key.p8": Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8),
        "/run/sa.json": Array(#"{"project_id":"chat-prod"}"#.utf8),
        "/etc/empty-apps.json": Array(#"{"apps": []}"#.utf8),
        "/etc/bare-app.json": Array(#"{"apps": [{"name": "chat"}]}"#.utf8),
        "/etc/half-apns.json": Array(#"{"apps": [{"name": "chat", "apns": {"topic": "com.example.chat"}}]}"#.utf8),
    ]

    private func load(_ environment: [String: String]) throws(ServiceError) -> GatewayConfiguration {
        try ConfigurationLoader(environment: environment, files: files).load()
    }

    private func expectRefusal(_ environment: [String: String], setting: String, mentions: [String] = [],
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            let configuration = try load(environment)
            XCTFail("started as \(try configuration.startMode(demoRequested: false))", file: file, line: line)
        } catch {
            XCTAssertEqual(error.setting, setting, "\(error)", file: file, line: line)
            for word in mentions { XCTAssertTrue(error.message.contains(word), "\(error) should mention \(word)", file: file, line: line) }
        }
    }

    func testNothingConfiguredOnLoopbackRunsTheDemo() throws {
        XCTAssertEqual(try load([:]).startMode(demoRequested: false), .demo)
        XCTAssertEqual(try load(["PUSHGW_LISTEN": "[::1]:0", "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens"]).startMode(demoRequested: false),
                       .demo, "tokens and a loopback address are not provider settings (bench/soak.sh runs this way)")
    }

    func testNothingConfiguredOnAnotherAddressRefusesTheStartUnlessTheDemoIsAskedFor() throws {
        let configuration = try load(["PUSHGW_LISTEN": "0.0.0.0:8080", "PUSHGW_BEARER_TOKENS_FILE": "/run/tokens"])
        XCTAssertThrowsError(try configuration.startMode(demoRequested: false)) { error in
            let message = (error as? ServiceError)?.message ?? ""
            XCTAssertTrue(message.contains("PUSHGW_FCM_SERVICE_ACCOUNT_FILE") && message.contains("--demo"), message)
        }
        XCTAssertEqual(try configuration.startMode(demoRequested: true), .demo)
    }

    func testAMisspeltCredentialVariableRefusesTheStartWithASuggestion() {
        expectRefusal(["PUSHGW_LISTEN": "0.0.0.0:8080", "PUSHGW_FCM_SERVICE_ACCOUNT": "/run/sa.json"],
                      setting: "PUSHGW_FCM_SERVICE_ACCOUNT", mentions: ["did you mean PUSHGW_FCM_SERVICE_ACCOUNT_FILE?"])
        expectRefusal(["PUSHGW_LISTN": "0.0.0.0:1"], setting: "PUSHGW_LISTN", mentions: ["did you mean PUSHGW_LISTEN?"])
    }

    func testTheRepositorysToolVariablesAreTolerated() throws {
        let tools = Dictionary(uniqueKeysWithValues: SettingCatalog.toolVariables.map { ($0, "x") })
        XCTAssertEqual(try load(tools).startMode(demoRequested: false), .demo)
    }

    func testAnAppSettingWithoutCredentialsRefusesTheStartNamingWhatIsMissing() {
        for setting in ["PUSHGW_FCM_BASE_URL", "PUSHGW_DATA_KEYS", "PUSHGW_APP_NAME", "PUSHGW_FCM_CA_FILE"] {
            let value = setting == "PUSHGW_DATA_KEYS" ? "{}" : setting == "PUSHGW_FCM_BASE_URL" ? "https://127.0.0.1:9" : "x"
            let expected = setting.hasPrefix("PUSHGW_FCM_") ? "PUSHGW_FCM_SERVICE_ACCOUNT_FILE" : setting == "PUSHGW_APP_NAME" ? "app x" : "app default"
            expectRefusal([setting: value], setting: expected,
                          mentions: [expected.hasPrefix("app ") ? "PUSHGW_FCM_SERVICE_ACCOUNT_FILE" : "service-account"])
        }
        expectRefusal(["PUSHGW_APP_NAME": "chat"], setting: "app chat",
                      mentions: ["no credentials", "PUSHGW_APNS_KEY_FILE, PUSHGW_APNS_KEY_ID, PUSHGW_APNS_TEAM_ID and PUSHGW_APNS_TOPIC"])
    }

    func testAPartialAPNsSetRefusesTheStartListingEveryMissingSetting() {
        expectRefusal(["PUSHGW_APNS_KEY_ID": "ABC123DEFG", "PUSHGW_APNS_CA_FILE": "/run/ca.pem"], setting: "PUSHGW_APNS_KEY_FILE",
                      mentions: ["PUSHGW_APNS_KEY_FILE, PUSHGW_APNS_TEAM_ID, PUSHGW_APNS_TOPIC"])
    }

    func testAFileWithAnEmptyOrBareAppListRefusesTheStart() {
        expectRefusal(["PUSHGW_CONFIG_FILE": "/etc/empty-apps.json"], setting: "apps")
        expectRefusal(["PUSHGW_CONFIG_FILE": "/etc/bare-app.json"], setting: "apps[0] (chat)", mentions: ["no credentials"])
        expectRefusal(["PUSHGW_CONFIG_FILE": "/etc/half-apns.json"], setting: "apps[0].apns.key_file",
                      mentions: ["apps[0].apns.key_id", "apps[0].apns.team_id"])
    }

    /// Loopback is recognised however it is written (regression: only its usual text was).
    func testLoopbackIsRecognisedInEverySpelling() {
        var configuration = GatewayConfiguration()
        for address in ["127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] {
            configuration.listenAddress = address
            XCTAssertTrue(configuration.listensOnLoopback, address)
        }
        for address in ["0.0.0.0", "10.0.0.1", "::", "::2", "::ffff:10.0.0.1", "128.0.0.1", "localhost"] {
            configuration.listenAddress = address
            XCTAssertFalse(configuration.listensOnLoopback, address)
        }
    }
}
