@testable import GatewayService
import PushGWSync
import TestSupport
import XCTest

/// What `/readyz` is told of the providers: a mark per app and provider,
/// cleared by a success or forgotten after a while.
final class ProviderHealthTests: XCTestCase {
    func testAMarkIsClearedByASuccessOfThatProviderOnly() {
        let health = ProviderHealth()
        XCTAssertEqual(health.knownBad, [])
        health.failed(app: "chat", provider: "apns", reason: "TopicDisallowed")
        health.failed(app: "chat", provider: "fcm", reason: "credentials")
        health.worked(app: "shop", provider: "apns")
        XCTAssertEqual(health.knownBad, ["chat apns: TopicDisallowed", "chat fcm: credentials"])
        health.worked(app: "chat", provider: "apns")
        XCTAssertEqual(health.knownBad, ["chat fcm: credentials"])
    }

    /// `failed` says when a mark is news (new, another reason, or older
    /// than the memory): what the dispatcher logs, once per change.
    func testAMarkIsNewsOncePerReasonAndMemory() {
        let clock = TestClock()
        let health = ProviderHealth(memory: .seconds(60), now: { clock.instant })
        XCTAssertTrue(health.failed(app: "chat", provider: "fcm", reason: "credentials"))
        XCTAssertFalse(health.failed(app: "chat", provider: "fcm", reason: "credentials"))
        XCTAssertTrue(health.failed(app: "chat", provider: "apns", reason: "credentials"), "another provider")
        XCTAssertTrue(health.failed(app: "chat", provider: "fcm", reason: "certificate_rejected"), "another reason")
        clock.advance(by: .seconds(30))
        XCTAssertFalse(health.failed(app: "chat", provider: "fcm", reason: "certificate_rejected"))
        clock.advance(by: .seconds(60))
        XCTAssertTrue(health.failed(app: "chat", provider: "fcm", reason: "certificate_rejected"), "a minute on: news again")
        health.worked(app: "chat", provider: "fcm")
        XCTAssertTrue(health.failed(app: "chat", provider: "fcm", reason: "certificate_rejected"), "after a success")
    }

    func testAMarkIsForgottenAfterItsMemorySoAnInstanceOutOfRotationComesBack() {
        let clock = TestClock()
        let health = ProviderHealth(memory: .seconds(60), now: { clock.instant })
        health.failed(app: "chat", provider: "apns", reason: "InvalidProviderToken")
        clock.advance(by: .seconds(59))
        XCTAssertEqual(health.knownBad, ["chat apns: InvalidProviderToken"])
        clock.advance(by: .seconds(1))
        XCTAssertEqual(health.knownBad, [])
    }
}
