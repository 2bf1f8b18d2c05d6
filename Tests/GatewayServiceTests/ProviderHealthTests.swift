@testable import GatewayService
import PushGWSync
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

    func testAMarkIsForgottenAfterItsMemorySoAnInstanceOutOfRotationComesBack() {
        let clock = Locked(ContinuousClock.now)
        let health = ProviderHealth(memory: .seconds(60), now: { clock.withLock { $0 } })
        health.failed(app: "chat", provider: "apns", reason: "InvalidProviderToken")
        clock.withLock { $0 += .seconds(59) }
        XCTAssertEqual(health.knownBad, ["chat apns: InvalidProviderToken"])
        clock.withLock { $0 += .seconds(1) }
        XCTAssertEqual(health.knownBad, [])
    }
}
