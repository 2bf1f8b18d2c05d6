import GatewayService
import XCTest

/// An app's feedback webhook in the configuration file: a URL and its
/// secret file, both or neither.
final class FeedbackSettingsTests: XCTestCase {
    static let key = Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8)

    func file(_ app: String) -> [UInt8] {
        Array(#"{"bearer_tokens_file": "tokens", "apps": [{"name": "chat", "fcm": {"service_account_file": "sa.json", "project_id": "p"}, \#(app)}]}"#.utf8)
    }

    func load(_ app: String, secret: String = "feedback-secret-0123456789\n") throws -> GatewayConfiguration {
        try ConfigurationLoader(environment: ["PUSHGW_CONFIG_FILE": "/etc/pushgw/pushgw.json"], files: [
            "/etc/pushgw/pushgw.json": file(app), "/etc/pushgw/tokens": Array("0123456789abcdef0123\n".utf8),
            "/etc/pushgw/sa.json": Array(#"{"project_id":"p"}"#.utf8), "/etc/pushgw/feedback.secret": Array(secret.utf8),
        ]).load()
    }

    func testAnAppsWebhookIsReadWithItsSecret() throws {
        let configuration = try load(#""feedback_url": "https://hooks.example.com/pushgw", "feedback_secret_file": "feedback.secret""#)
        XCTAssertEqual(configuration.apps.first?.feedback?.url, "https://hooks.example.com/pushgw")
        XCTAssertEqual(configuration.apps.first?.feedback?.secret, Array("feedback-secret-0123456789".utf8))
        XCTAssertEqual(FeedbackWebhooks.targets(of: configuration).keys.sorted(), ["chat"])
    }

    func testAURLWithoutASecretOrABadURLOrAShortSecretIsRefusedByName() throws {
        XCTAssertThrowsError(try load(#""feedback_url": "https://hooks.example.com/pushgw""#)) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "apps[0].feedback_secret_file")
        }
        XCTAssertThrowsError(try load(#""feedback_url": "ftp://x", "feedback_secret_file": "feedback.secret""#)) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "apps[0].feedback_url")
        }
        XCTAssertThrowsError(try load(#""feedback_url": "https://h.example", "feedback_secret_file": "feedback.secret""#, secret: "short\n")) { error in
            XCTAssertEqual((error as? ServiceError)?.setting, "apps[0].feedback_secret_file")
        }
        let none = try load(#""data_keys": {}"#)
        XCTAssertNil(none.apps.first?.feedback)
    }
}
