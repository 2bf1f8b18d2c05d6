import Foundation
import GatewayService
import XCTest

/// The demo banner: never a configured token, a seed path that works from
/// any folder, IPv6 addresses in brackets.
final class DemoBannerTests: XCTestCase {
    func testAConfiguredTokenIsNeverPrintedOnlyWhereItIs() {
        let banner = DemoBanner(address: "http://127.0.0.1:8080", apns: "https://127.0.0.1:1", fcm: "https://127.0.0.1:2",
                                auth: .configured(setting: "PUSHGW_BEARER_TOKENS_FILE"), seedEvent: .notFound).text
        XCTAssertTrue(banner.contains("the token in PUSHGW_BEARER_TOKENS_FILE"), banner)
        XCTAssertTrue(banner.contains("Bearer $TOKEN"), banner)
        let generated = DemoBanner(address: "http://127.0.0.1:8080", apns: "a", fcm: "f", auth: .generated("made-up-token-0123"),
                                   seedEvent: .notFound).text
        XCTAssertTrue(generated.contains("Bearer made-up-token-0123"), generated)
    }

    func testTheSeedEventIsNamedByItsAbsolutePathWhenFound() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let seed = DemoBanner.findSeedEvent(under: ["/nonexistent", root])
        XCTAssertEqual(seed, .found(root + "/fixtures/payloads/seed-chat-sdk.event.json"))
        let text = DemoBanner(address: "http://127.0.0.1:8080", apns: "a", fcm: "f", auth: .none, seedEvent: seed).text
        XCTAssertTrue(text.contains("--data-binary @\(root)/fixtures/payloads/seed-chat-sdk.event.json"), text)
        let missing = DemoBanner(address: "http://127.0.0.1:8080", apns: "a", fcm: "f", auth: .none,
                                 seedEvent: DemoBanner.findSeedEvent(under: ["/nonexistent"])).text
        XCTAssertTrue(missing.contains("Run these from the repository root"), missing)
    }

    func testAnIPv6AddressIsBracketedInURLs() {
        XCTAssertEqual(GatewayConfiguration.httpURL(address: "::1", port: 8080), "http://[::1]:8080")
        XCTAssertEqual(GatewayConfiguration.httpURL(address: "127.0.0.1", port: 8080), "http://127.0.0.1:8080")
    }

    /// With its own token, /metrics is shown with $METRICS_TOKEN and where to find it (regression: the command got 401).
    func testTheMetricsCommandCarriesTheMetricsTokenWhenOneIsConfigured() {
        let open = DemoBanner(address: "http://127.0.0.1:8080", apns: "a", fcm: "f", auth: .none, seedEvent: .notFound).text
        XCTAssertTrue(open.contains("curl -s http://127.0.0.1:8080/metrics"))
        let guarded = DemoBanner(address: "http://127.0.0.1:8080", apns: "a", fcm: "f", auth: .none, seedEvent: .notFound,
                                 metricsTokenSetting: "PUSHGW_METRICS_TOKEN_FILE").text
        XCTAssertTrue(guarded.contains(#"curl -s -H "Authorization: Bearer $METRICS_TOKEN" http://127.0.0.1:8080/metrics"#), guarded)
        XCTAssertTrue(guarded.contains("PUSHGW_METRICS_TOKEN_FILE"))
    }
}
