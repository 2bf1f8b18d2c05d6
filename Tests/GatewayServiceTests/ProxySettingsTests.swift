import GatewayService
import NetworkSockets
import XCTest

/// The outbound proxy's settings: which one names the proxy, which the
/// hosts around it, and that a bad one is refused without showing the password.
final class ProxySettingsTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "/etc/pushgw/proxy.json": Array(#"{"proxy": {"url": "http://file-proxy:3128", "no_proxy": ".corp.example"}}"#.utf8),
        "/etc/pushgw/typo.json": Array(#"{"proxy": {"url": "http://p:1", "noproxy": "x"}}"#.utf8),
    ]

    private func load(_ environment: [String: String]) throws(ServiceError) -> GatewayConfiguration {
        try ConfigurationLoader(environment: environment, files: files).load(use: .offlineRender)
    }

    func testWithoutAnySettingEveryConnectionIsDirect() throws {
        let configuration = try load([:])
        XCTAssertEqual(configuration.proxy, .direct)
        XCTAssertNil(configuration.proxySetting)
    }

    func testHTTPSProxyThenLowerCaseAreHonouredWithNoProxy() throws {
        let upper = try load(["HTTPS_PROXY": "http://upper:3128", "https_proxy": "http://lower:3128", "NO_PROXY": "localhost"])
        XCTAssertEqual(upper.proxy.proxy?.host, "upper")
        XCTAssertEqual(upper.proxySetting, "HTTPS_PROXY")
        XCTAssertNil(upper.proxy.proxy(for: "localhost"))
        XCTAssertNotNil(upper.proxy.proxy(for: "api.push.apple.com"))
        let lower = try load(["https_proxy": "lower:8080", "no_proxy": "*"])
        XCTAssertEqual(lower.proxy.proxy, OutboundProxy(host: "lower", port: 8080))
        XCTAssertNil(lower.proxy.proxy(for: "api.push.apple.com"))
    }

    func testTheFileOverridesTheConventionalVariablesAndPushgwProxyURLOverridesTheFile() throws {
        let file = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/proxy.json", "HTTPS_PROXY": "http://env:3128", "NO_PROXY": "*"])
        XCTAssertEqual(file.proxy.proxy?.host, "file-proxy")
        XCTAssertEqual(file.proxySetting, "proxy.url")
        XCTAssertNil(file.proxy.proxy(for: "a.corp.example"))
        XCTAssertNotNil(file.proxy.proxy(for: "fcm.googleapis.com"), "the file's no_proxy, not NO_PROXY")
        let own = try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/proxy.json", "PUSHGW_PROXY_URL": "http://own:8080",
                            "PUSHGW_NO_PROXY": "fcm.googleapis.com"])
        XCTAssertEqual(own.proxy.proxy?.host, "own")
        XCTAssertNil(own.proxy.proxy(for: "fcm.googleapis.com"))
        XCTAssertNotNil(own.proxy.proxy(for: "a.corp.example"))
    }

    func testNoneTurnsTheProxyOffWhateverHTTPSProxySays() throws {
        let configuration = try load(["PUSHGW_PROXY_URL": "none", "HTTPS_PROXY": "http://env:3128"])
        XCTAssertEqual(configuration.proxy, .direct)
        XCTAssertEqual(configuration.proxySetting, "PUSHGW_PROXY_URL")
    }

    func testABadProxyURLNamesItsSettingAndHidesThePassword() {
        for (setting, environment) in [("PUSHGW_PROXY_URL", ["PUSHGW_PROXY_URL": "https://alice:s3cret-pw@proxy:3128"]),
                                       ("HTTPS_PROXY", ["HTTPS_PROXY": "http://alice:s3cret-pw@proxy:notaport"])] {
            XCTAssertThrowsError(try load(environment)) { error in
                guard let error = error as? ServiceError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.setting, setting)
                XCTAssertFalse(error.description.contains("s3cret-pw"), error.description)
                XCTAssertTrue(error.description.contains("alice") || error.description.contains("***"), error.description)
            }
        }
    }

    func testAnUnknownKeyOfTheProxyObjectIsRefused() {
        XCTAssertThrowsError(try load(["PUSHGW_CONFIG_FILE": "/etc/pushgw/typo.json"])) { error in
            XCTAssertTrue("\(error)".contains("noproxy"), "\(error)")
        }
    }

    func testCredentialsInTheProxyURLReachTheRouteButNotItsDescription() throws {
        let configuration = try load(["PUSHGW_PROXY_URL": "http://alice:s3cret-pw@proxy.corp.example:3128"])
        let proxy = try XCTUnwrap(configuration.proxy.proxy)
        XCTAssertEqual(proxy.username, "alice")
        XCTAssertEqual(proxy.redacted, "http://alice:***@proxy.corp.example:3128")
        XCTAssertFalse("\(configuration.proxy)".contains("s3cret-pw"))
        var dumped = ""
        dump(configuration.proxy, to: &dumped)
        XCTAssertFalse(dumped.contains("s3cret-pw"), dumped)
    }
}
