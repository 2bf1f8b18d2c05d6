@testable import APNsSimulator
import Foundation
import PushGWSync
import XCTest

/// Provider-token keys parsed once per simulator and shared by connections:
/// a verifier with the keyring answers as one that parses its own keys, and
/// verifiers on several threads share one keyring.
final class ProviderKeyringTests: XCTestCase {
    func testAVerifierWithTheKeyringAnswersAsOneParsingItsOwnKeys() throws {
        let key = try SimTestKey()
        let other = try SimTestKey()
        let rsa = try ThrowawayServiceAccount(projectID: "p").registration.publicKeyPEM
        let configuration = APNsSimulatorConfiguration(
            teamID: "TEAM123456", keys: ["KEY1234567": key.publicKeyPEM, "RSAKEY0000": rsa, "BADKEY0000": "not a key"],
            topics: ["t"])
        let keyring = ProviderKeyring(pems: configuration.keys)
        XCTAssertNotNil(keyring.key(for: "KEY1234567"))
        XCTAssertNil(keyring.key(for: "RSAKEY0000"), "not P-256")
        XCTAssertNil(keyring.key(for: "BADKEY0000"))
        let start = 1_700_000_000
        let tokens = [
            "bearer " + key.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: start),
            "bearer " + key.jwt(keyID: "RSAKEY0000", teamID: "TEAM123456", issuedAt: start),
            "bearer " + key.jwt(keyID: "BADKEY0000", teamID: "TEAM123456", issuedAt: start),
            "bearer " + key.jwt(keyID: "NOKEY00000", teamID: "TEAM123456", issuedAt: start),
            "bearer " + other.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: start),
            "bearer " + key.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: start + 10),
        ]
        var shared = ProviderTokenVerifier(configuration: configuration, keyring: keyring)
        var own = ProviderTokenVerifier(configuration: configuration)
        for token in tokens {
            let sharedAnswer = shared.check(authorization: token, now: Double(start + 20))
            XCTAssertEqual(sharedAnswer, own.check(authorization: token, now: Double(start + 20)), token)
            XCTAssertEqual(shared.hasCurrentToken, own.hasCurrentToken, token)
        }
        XCTAssertTrue(shared.hasCurrentToken)
    }

    func testVerifiersOnSeveralThreadsShareOneKeyring() throws {
        let key = try SimTestKey()
        let configuration = APNsSimulatorConfiguration(teamID: "TEAM123456", keys: ["KEY1234567": key.publicKeyPEM], topics: ["t"])
        let keyring = ProviderKeyring(pems: configuration.keys)
        let start = 1_700_000_000
        let tokens = (0..<64).map { "bearer " + key.jwt(keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: start + $0) }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for token in tokens {
                var verifier = ProviderTokenVerifier(configuration: configuration, keyring: keyring)
                if verifier.check(authorization: token, now: Double(start + 100)) != nil { failures.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }
}
