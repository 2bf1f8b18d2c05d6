import APNsHTTP2
@testable import HTTP2Client
import APNsSimulator
@testable import OpenSSLCrypto
import Foundation
import GatewayService
import XCTest

/// M2, L5, L8: start-up errors name the setting that is wrong, under the
/// name the user set, and never echo a URL's password.
final class ConfigurationErrorNamesTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/run/key.p8": Array("-----BEGIN PRIVATE KEY-----\n...\n".utf8),
        "/run/sa.json": Array(#"{"project_id":"chat-prod"}"#.utf8),
        "/run/not-pem.txt": Array("hello\n".utf8),
        "/etc/base.json": Array("""
            {"apps": [{"name": "a", "fcm": {"service_account_file": "/run/sa.json", "base_url": "https://h:1/v1"}}]}
            """.utf8),
    ]
    private let apns = ["PUSHGW_APNS_KEY_FILE": "/run/key.p8", "PUSHGW_APNS_KEY_ID": "ABC123DEFG", "PUSHGW_APNS_TEAM_ID": "DEF123GHIJ",
                        "PUSHGW_APNS_TOPIC": "com.example.chat"]

    private func error(_ environment: [String: String], configFile: String? = nil) -> ServiceError? {
        do {
            _ = try ConfigurationLoader(environment: environment, files: files).load(configFile: configFile)
            return nil
        } catch {
            return error
        }
    }

    func testABaseURLsShapeIsCheckedAtLoadTimeUnderItsOwnName() {
        for url in ["https://127.0.0.1:9/some/path", "https://127.0.0.1:99999", "https://127.0.0.1:9?x=1", "https://:9", "http://h"] {
            XCTAssertEqual(error(apns.merging(["PUSHGW_APNS_BASE_URL": url]) { $1 })?.setting, "PUSHGW_APNS_BASE_URL", url)
        }
        XCTAssertEqual(error(["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json", "PUSHGW_FCM_BASE_URL": "https://h:0"])?.setting,
                       "PUSHGW_FCM_BASE_URL")
        XCTAssertEqual(error(["PUSHGW_CONFIG_FILE": "/etc/base.json"])?.setting, "apps[0].fcm.base_url")
        XCTAssertNil(error(apns.merging(["PUSHGW_APNS_BASE_URL": "https://[::1]:8443/"]) { $1 }))
    }

    func testAURLsUserNameAndPasswordAreNeverEchoed() throws {
        let found = try XCTUnwrap(error(apns.merging(["PUSHGW_APNS_BASE_URL": "https://user:s3cret@127.0.0.1:9?x=1"]) { $1 }))
        XCTAssertEqual(found.setting, "PUSHGW_APNS_BASE_URL")
        XCTAssertFalse(found.description.contains("s3cret") || found.description.contains("user:"), found.description)
    }

    func testACAFileWithoutACertificateIsBlamedOnTheCAFileSetting() {
        XCTAssertEqual(error(apns.merging(["PUSHGW_APNS_CA_FILE": "/run/not-pem.txt"]) { $1 })?.setting, "PUSHGW_APNS_CA_FILE")
        XCTAssertEqual(error(["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": "/run/sa.json", "PUSHGW_FCM_CA_FILE": "/run/missing.pem"])?.setting,
                       "PUSHGW_FCM_CA_FILE")
    }

    func testValuesFromTheEnvironmentAreNamedByTheirVariable() {
        XCTAssertEqual(error(apns.merging(["PUSHGW_APNS_TOPIC": "com.x y"]) { $1 })?.setting, "PUSHGW_APNS_TOPIC")
        XCTAssertEqual(error(["PUSHGW_LISTEN": "localhost:0"])?.setting, "PUSHGW_LISTEN")
        XCTAssertEqual(error([:], configFile: "/nowhere.json")?.setting, "--config")
    }

    func testTheDefaultLocaleMustBeASupportedOne() throws {
        XCTAssertEqual(error(["PUSHGW_DEFAULT_LOCALE": "xx"])?.setting, "PUSHGW_DEFAULT_LOCALE")
        let configuration = try ConfigurationLoader(environment: ["PUSHGW_DEFAULT_LOCALE": "vi-VN"], files: [:]).load()
        XCTAssertEqual(configuration.defaultLocale, "vi")
    }

    func testTheProviderTokenAgeIsASettingFrom20To50Minutes() throws {
        XCTAssertEqual(error(apns.merging(["PUSHGW_APNS_TOKEN_REFRESH_MINUTES": "10"]) { $1 })?.setting,
                       "PUSHGW_APNS_TOKEN_REFRESH_MINUTES")
        let configuration = try ConfigurationLoader(environment: apns.merging(["PUSHGW_APNS_TOKEN_REFRESH_MINUTES": "25"]) { $1 },
                                                    files: files).load()
        XCTAssertEqual(configuration.apps.first?.apns?.tokenRefreshAge, .seconds(25 * 60))
        XCTAssertEqual(GatewayConfiguration.APNsSettings.defaultTokenRefreshAge, ProviderTokenCache.defaultRefreshAge)
    }

    /// A CA file that looks like PEM but does not load is the CA file's
    /// problem, not the key's (APNs) or the base URL's (FCM).
    func testACAFileThatDoesNotLoadIsBlamedOnTheCAFileAtStartUp() async throws {
        let folder = NSTemporaryDirectory() + "pushgw-ca-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let badCA = folder + "/ca.pem"
        try Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: badCA))
        let key = folder + "/key.p8"
        try Data(try ES256SigningKey.generate().privateKeyPEM.utf8).write(to: URL(fileURLWithPath: key))
        let account = folder + "/sa.json"
        try Data(try ThrowawayServiceAccount(projectID: "p").json(tokenURI: "https://127.0.0.1:9/token").utf8)
            .write(to: URL(fileURLWithPath: account))
        let base = ["PUSHGW_BEARER_TOKENS": "a-long-enough-bearer-token-0123456789", "PUSHGW_LISTEN": "127.0.0.1:0"]
        let cases = [
            ("PUSHGW_APNS_CA_FILE", ["PUSHGW_APNS_KEY_FILE": key, "PUSHGW_APNS_KEY_ID": "KEYID12345", "PUSHGW_APNS_TEAM_ID": "TEAM123456",
                                     "PUSHGW_APNS_TOPIC": "com.example.chat", "PUSHGW_APNS_BASE_URL": "https://127.0.0.1:9",
                                     "PUSHGW_APNS_CA_FILE": badCA]),
            ("PUSHGW_FCM_CA_FILE", ["PUSHGW_FCM_SERVICE_ACCOUNT_FILE": account, "PUSHGW_FCM_BASE_URL": "https://127.0.0.1:9",
                                    "PUSHGW_FCM_CA_FILE": badCA]),
        ]
        for (setting, environment) in cases {
            let configuration = try ConfigurationLoader(environment: base.merging(environment) { $1 }).load()
            do {
                let gateway = try Gateway(configuration: configuration, logger: Logger(minimumLevel: .error))
                await gateway.shutdown(drain: .zero)
                XCTFail("\(setting): a gateway started with a CA file that does not load")
            } catch {
                XCTAssertEqual(error.setting, setting, "\(error)")
            }
        }
    }
}
