import GatewayService
import PayloadBuilder
import XCTest

/// `apps[].web.link_template` / `PUSHGW_WEB_LINK_TEMPLATE`: read from the
/// file and the environment (which wins), checked with an error naming
/// the setting, and handed to rendering.
final class WebLinkSettingTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/run/sa.json": Array(#"{"type":"service_account","project_id":"site-chat","client_email":"x@y"}"#.utf8),
        "/etc/web.json": Array("""
            {"insecure_no_auth": true,
             "apps": [{"name": "site", "fcm": {"service_account_file": "/run/sa.json"},
                       "web": {"link_template": "https://chat.example/c/{conversation_id}"}}]}
            """.utf8),
        "/etc/web-typo.json": Array("""
            {"insecure_no_auth": true,
             "apps": [{"name": "site", "fcm": {"service_account_file": "/run/sa.json"}, "web": {"link": "https://chat.example/"}}]}
            """.utf8),
    ]

    private func load(_ environment: [String: String]) throws(ServiceError) -> GatewayConfiguration {
        try ConfigurationLoader(environment: environment, files: files).load()
    }

    func testTheFileSetsTheTemplateAndTheEnvironmentReplacesIt() throws {
        let fromFile = try load(["PUSHGW_CONFIG_FILE": "/etc/web.json"])
        XCTAssertEqual(try fromFile.renderConfig().apps[0].webLink?.link(conversationID: "a b"), "https://chat.example/c/a%20b")
        let overridden = try load(["PUSHGW_CONFIG_FILE": "/etc/web.json",
                                   "PUSHGW_WEB_LINK_TEMPLATE": "https://other.example/open?c={conversation_id}"])
        XCTAssertEqual(try overridden.renderConfig().apps[0].webLink?.template, "https://other.example/open?c={conversation_id}")
        let environmentOnly = try load(["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json", "PUSHGW_INSECURE_NO_AUTH": "true",
                                        "PUSHGW_WEB_LINK_TEMPLATE": "https://chat.example/c/{conversation_id}"])
        XCTAssertEqual(environmentOnly.apps.map(\.name), ["default"])
        XCTAssertNotNil(try environmentOnly.renderConfig().apps[0].webLink)
        XCTAssertNil(try load(["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json", "PUSHGW_INSECURE_NO_AUTH": "true"])
            .renderConfig().apps[0].webLink)
    }

    func testABadTemplateOrKeyIsRefusedNamingTheSetting() {
        let cases: [([String: String], String)] = [
            (["PUSHGW_CONFIG_FILE": "/etc/web.json", "PUSHGW_WEB_LINK_TEMPLATE": "http://chat.example/c/{conversation_id}"],
             "PUSHGW_WEB_LINK_TEMPLATE"),
            (["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json", "PUSHGW_WEB_LINK_TEMPLATE": "https://chat.example/c/{id}"],
             "PUSHGW_WEB_LINK_TEMPLATE"),
            (["PUSHGW_CONFIG_FILE": "/etc/web-typo.json"], "apps[0].web.link"),
        ]
        for (environment, setting) in cases {
            XCTAssertThrowsError(try load(environment), setting) { error in
                XCTAssertEqual((error as? ServiceError)?.setting, setting, "\(error)")
            }
        }
    }
}
