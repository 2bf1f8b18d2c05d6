import PayloadBuilder
import XCTest

/// M3: the pure reader of the configuration file accepts every key of the
/// service's file (`ConfigFileKeys`), so one file serves both.
final class ConfigFileKeysTests: XCTestCase {
    func testTheServicesSettingsAreAcceptedAndIgnoredByThePureReader() throws {
        let file = """
            {"listen": "0.0.0.0:8080", "bearer_tokens_file": "tokens", "log_level": "info", "avatar": {"allow_http": false},
             "redis": {"url": "rediss://cache:6380/0", "prefix": "chat:", "on_failure": "refuse"},
             "apps": [{"name": "chat",
                       "apns": {"key_file": "AuthKey.p8", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "topic": "com.example.chat",
                                "ca_file": "ca.pem", "connections": 2, "token_refresh_minutes": 30},
                       "fcm": {"service_account_file": "sa.json", "project_id": "example-project", "connections": 2}}]}
            """
        let config = try RenderConfig(json: Array(file.utf8))
        XCTAssertEqual(config.apps.first?.apns?.topic, "com.example.chat")
        XCTAssertEqual(config.apps.first?.fcm?.projectID, "example-project")
    }

    func testAKeyNeitherReaderKnowsIsRefusedByName() {
        XCTAssertThrowsError(try RenderConfig(json: Array(#"{"apps": [], "listn": "x"}"#.utf8))) { error in
            XCTAssertEqual((error as? ConfigError)?.setting, "listn")
        }
    }
}
