import GatewayService
import PayloadBuilder
import WebPush
import WebPushClient
import XCTest

/// `apps[].webpush` and `PUSHGW_WEBPUSH_*`: an app with a VAPID key sends
/// web push; errors name the setting.
final class WebPushSettingsTests: XCTestCase {
    private let key = try! VAPIDKey.generate()

    private var files: [String: [UInt8]] {
        [
            "/run/tokens": Array("0123456789abcdef0123\n".utf8),
            "/run/vapid.pem": Array(key.privateKeyPEM.utf8),
            "/run/vapid.txt": Array((try! key.privateKeyBase64URL() + "\n").utf8),
            "/run/not-a-key": Array("hello\n".utf8),
            "/etc/pushgw.json": Array("""
                {"bearer_tokens_file": "/run/tokens",
                 "apps": [{"name": "site", "webpush": {"vapid_key_file": "/run/vapid.pem", "vapid_subject": "mailto:ops@example.com",
                                                       "allowed_hosts": ["push.example.net", "*.push.example.org"],
                                                       "connections": 2}}]}
                """.utf8),
        ]
    }

    private func load(_ environment: [String: String]) throws(ServiceError) -> GatewayConfiguration {
        try ConfigurationLoader(environment: environment, files: files).load()
    }

    private func expectError(_ environment: [String: String], setting: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try load(environment)
            XCTFail("expected an error about \(setting)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.setting, setting, "\(error)", file: file, line: line)
        }
    }

    func testAnAppWithOnlyAWebPushSectionSendsWebPush() throws {
        let configuration = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw.json"])
        let webPush = try XCTUnwrap(configuration.apps.first?.webPush)
        XCTAssertEqual(webPush.vapidKeyFile, "/run/vapid.pem")
        XCTAssertEqual(webPush.vapidSubject, "mailto:ops@example.com")
        XCTAssertEqual(webPush.allowedHosts, ["push.example.net", "*.push.example.org"])
        XCTAssertEqual(webPush.connections, 2)
        XCTAssertFalse(webPush.allowPrivateAddresses)
        XCTAssertTrue(try configuration.renderConfig().apps[0].sendsWebPush)
    }

    func testTheEnvironmentDescribesWebPushWithTheDefaultAllowList() throws {
        let configuration = try load(["PUSHGW_BEARER_TOKENS_FILE": "/run/tokens", "PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/vapid.txt",
                                      "PUSHGW_WEBPUSH_VAPID_SUBJECT": "https://example.com/contact"])
        let webPush = try XCTUnwrap(configuration.apps.first?.webPush)
        XCTAssertEqual(webPush.allowedHosts, WebPushEndpointPolicy.defaultAllowedHosts)
        XCTAssertFalse(configuration.hasNoProviderSettings, "web push settings are not the demo")
    }

    func testAnAppWithoutAVAPIDKeySkipsSubscriptions() throws {
        let configuration = try ConfigurationLoader(environment: ["PUSHGW_BEARER_TOKENS_FILE": "/run/tokens",
                                                                  "PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json"],
                                                    files: files.merging(["/run/sa.json": Array(#"{"project_id":"p"}"#.utf8)]) { $1 }).load()
        XCTAssertNil(configuration.apps[0].webPush)
        XCTAssertFalse(try configuration.renderConfig().apps[0].sendsWebPush)
    }

    func testMistakesNameTheirSetting() {
        let base = ["PUSHGW_BEARER_TOKENS_FILE": "/run/tokens"]
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com"]) { $1 },
                    setting: "PUSHGW_WEBPUSH_VAPID_KEY_FILE")
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/vapid.pem"]) { $1 }, setting: "PUSHGW_WEBPUSH_VAPID_SUBJECT")
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/vapid.pem", "PUSHGW_WEBPUSH_VAPID_SUBJECT": "ops@example.com"]) { $1 },
                    setting: "PUSHGW_WEBPUSH_VAPID_SUBJECT")
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/not-a-key",
                                  "PUSHGW_WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com"]) { $1 },
                    setting: "PUSHGW_WEBPUSH_VAPID_KEY_FILE")
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/vapid.pem", "PUSHGW_WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
                                  "PUSHGW_WEBPUSH_ALLOWED_HOSTS": "push.example.net,,"]) { $1 },
                    setting: "PUSHGW_WEBPUSH_ALLOWED_HOSTS")
        expectError(base.merging(["PUSHGW_WEBPUSH_VAPID_KEY_FILE": "/run/vapid.pem", "PUSHGW_WEBPUSH_VAPID_SUBJECT": "mailto:ops@example.com",
                                  "PUSHGW_WEBPUSH_CONNECTIONS": "0"]) { $1 },
                    setting: "PUSHGW_WEBPUSH_CONNECTIONS")
    }
}
