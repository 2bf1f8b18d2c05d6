import GatewayService
import PayloadBuilder
import XCTest

/// M4: an environment variable overrides the same key of the file, field by
/// field for an app, and the environment's tokens replace the file's.
final class ConfigurationPrecedenceTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/etc/pushgw/tokens": Array("file-token-0123456789\n".utf8),
        "/run/env-tokens": Array("env-token-0123456789ab\n".utf8),
        "/etc/pushgw/key.p8": Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8),
        "/run/rotated.p8": Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8),
        "/etc/pushgw/sa.json": Array(#"{"project_id":"chat-prod"}"#.utf8),
        "/etc/pushgw/one.json": Array("""
            {"bearer_tokens_file": "tokens",
             "apps": [{"name": "a", "apns": {"key_file": "key.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
                                             "topic": "com.example.a"},
                       "fcm": {"service_account_file": "sa.json"}, "data_keys": {"ps_thread_id": "conversationId"}}]}
            """.utf8),
        "/etc/pushgw/origin.json": Array("""
            {"bearer_tokens_file": "tokens",
             "apps": [{"name": "a", "apns": {"key_file": "key.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
                                             "topic": "com.example.a", "base_url": "https://api.push.apple.com"}}]}
            """.utf8),
        "/etc/pushgw/both.json": Array("""
            {"bearer_tokens_file": "tokens",
             "apps": [{"name": "a", "apns": {"key_file": "key.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ",
                                             "topic": "com.example.a", "environment": "sandbox",
                                             "base_url": "https://api.push.apple.com"}}]}
            """.utf8),
        "/etc/pushgw/two.json": Array("""
            {"apps": [{"name": "a", "fcm": {"service_account_file": "/etc/pushgw/sa.json"}},
                      {"name": "b", "fcm": {"service_account_file": "/etc/pushgw/sa.json"}}]}
            """.utf8),
    ]

    private func load(_ environment: [String: String]) throws(ServiceError) -> GatewayConfiguration {
        try ConfigurationLoader(environment: environment, files: files).load()
    }

    func testAnEnvironmentAPNsSettingReplacesThatFieldAndKeepsTheRestOfTheFilesApp() throws {
        for name in [nil, "a"] as [String?] {
            var environment = ["PUSHGW_CONFIG_FILE": "/etc/pushgw/one.json", "PUSHGW_APNS_KEY_FILE": "/run/rotated.p8"]
            environment["PUSHGW_APP_NAME"] = name
            let configuration = try load(environment)
            XCTAssertEqual(configuration.apps.map(\.name), ["a"], "no second app")
            let app = try XCTUnwrap(configuration.apps.first)
            XCTAssertEqual(app.apns?.keyFile, "/run/rotated.p8")
            XCTAssertEqual(app.apns?.keyFileSetting, "PUSHGW_APNS_KEY_FILE")
            XCTAssertEqual(app.apns?.topic, "com.example.a", "the file's topic is kept")
            XCTAssertEqual(app.fcm?.projectID, "chat-prod", "the file's FCM credentials are kept")
            XCTAssertEqual(app.dataKeys.wireName(.threadID), "conversationId", "the file's data keys are kept")
        }
    }

    /// The environment and the base URL are one setting, the APNs origin:
    /// PUSHGW_APNS_ENVIRONMENT replaces a file's base_url (regression:
    /// the file's base_url silently won), and one source may not give both.
    func testTheEnvironmentsAPNsOriginReplacesTheFilesInEitherSpelling() throws {
        let sandbox = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/origin.json", "PUSHGW_APNS_ENVIRONMENT": "sandbox"])
        XCTAssertEqual(sandbox.apps.first?.apns?.baseURL, "https://api.sandbox.push.apple.com")
        let other = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/origin.json", "PUSHGW_APNS_BASE_URL": "https://127.0.0.1:9443"])
        XCTAssertEqual(other.apps.first?.apns?.baseURL, "https://127.0.0.1:9443")
        XCTAssertThrowsError(try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/both.json"])) { error in
            XCTAssertTrue("\(error)".contains("not both"), "\(error)")
        }
        XCTAssertThrowsError(try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/origin.json", "PUSHGW_APNS_ENVIRONMENT": "sandbox",
                                       "PUSHGW_APNS_BASE_URL": "https://127.0.0.1:9443"]))
    }

    func testWithSeveralAppsInTheFileTheAppNamePicksOneAndIsRequired() throws {
        let environment = ["PUSHGW_CONFIG_FILE": "/etc/pushgw/two.json", "PUSHGW_FCM_PROJECT_ID": "other-project"]
        XCTAssertThrowsError(try load(environment)) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_APP_NAME", "\(error)")
        }
        let configuration = try load(environment.merging(["PUSHGW_APP_NAME": "b"]) { $1 })
        XCTAssertEqual(configuration.apps.map(\.name), ["a", "b"])
        XCTAssertEqual(configuration.apps.map { $0.fcm?.projectID }, ["chat-prod", "other-project"])
        XCTAssertThrowsError(try load(environment.merging(["PUSHGW_APP_NAME": "c"]) { $1 })) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "PUSHGW_APP_NAME", "\(error)")
        }
    }

    func testEnvironmentTokensReplaceTheFilesTokens() throws {
        let fromFile = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/one.json"])
        XCTAssertEqual(fromFile.bearerTokens, ["file-token-0123456789"])
        XCTAssertEqual(fromFile.bearerTokensSetting, "bearer_tokens_file")
        let list = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/one.json", "PUSHGW_BEARER_TOKENS": "list-token-0123456789"])
        XCTAssertEqual(list.bearerTokens, ["list-token-0123456789"])
        let file = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/one.json", "PUSHGW_BEARER_TOKENS_FILE": "/run/env-tokens"])
        XCTAssertEqual(file.bearerTokens, ["env-token-0123456789ab"])
        XCTAssertEqual(file.bearerTokensSetting, "PUSHGW_BEARER_TOKENS_FILE")
    }

    func testRelativePathsInTheFileAreRelativeToItsFolder() throws {
        let app = try XCTUnwrap(load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/one.json"]).apps.first)
        XCTAssertEqual(app.apns?.keyFile, "/etc/pushgw/key.p8")
        XCTAssertEqual(app.fcm?.serviceAccountFile, "/etc/pushgw/sa.json")
    }
}
