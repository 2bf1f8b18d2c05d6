import Foundation
import OpenSSLCrypto
import TestSupport
import WebPush
import XCTest

/// The VAPID `Authorization` header: its form, its claims, and the cache
/// of one token per origin that is re-signed before it expires.
final class VAPIDAuthorizerTests: XCTestCase {
    static let endpoint = "https://fcm.googleapis.com/fcm/send/abc:def"
    static let subject = "mailto:push-ops@example.com"

    func makeAuthorizer(clock: TestClock, lifetime: Int64 = VAPIDAuthorizer.defaultLifetime) throws -> (VAPIDAuthorizer, VAPIDKey) {
        let key = try VAPIDKey.generate()
        let authorizer = try VAPIDAuthorizer(key: key, subject: Self.subject, lifetime: lifetime) { clock.epochSeconds }
        return (authorizer, key)
    }

    /// The header's JWT parts and public key.
    static func parse(_ authorization: String) throws -> (header: [String: Any], claims: [String: Any], signature: [UInt8], k: String) {
        let pattern = try NSRegularExpression(pattern: #"\Avapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)\z"#)
        let match = try XCTUnwrap(pattern.firstMatch(in: authorization, range: NSRange(authorization.startIndex..., in: authorization)),
                                  authorization)
        func group(_ index: Int) -> String { String(authorization[Range(match.range(at: index), in: authorization)!]) }
        func json(_ part: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(XCTUnwrap(Base64URL.decode(part)))) as? [String: Any])
        }
        return (try json(group(1)), try json(group(2)), try XCTUnwrap(Base64URL.decode(group(3))), group(4))
    }

    func testTheHeaderCarriesAnES256JWTForTheOriginAndThePublicKey() throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let (authorizer, key) = try makeAuthorizer(clock: clock)
        let parts = try Self.parse(authorizer.authorization(forEndpoint: Self.endpoint))
        XCTAssertEqual(parts.header as? [String: String], ["typ": "JWT", "alg": "ES256"])
        XCTAssertEqual(parts.claims["aud"] as? String, "https://fcm.googleapis.com")
        XCTAssertEqual(parts.claims["exp"] as? Int, 1_767_225_600 + 12 * 3600)
        XCTAssertEqual(parts.claims["sub"] as? String, Self.subject)
        XCTAssertEqual(parts.claims.count, 3)
        XCTAssertEqual(parts.signature.count, 64, "raw R‖S, not DER")
        XCTAssertEqual(parts.k, key.publicKeyBase64URL)
    }

    func testOneTokenPerOriginIsReusedUntilHalfItsLifeIsGone() throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let (authorizer, _) = try makeAuthorizer(clock: clock)
        let first = try authorizer.authorization(forEndpoint: Self.endpoint)
        XCTAssertEqual(try authorizer.authorization(forEndpoint: "https://fcm.googleapis.com/fcm/send/another-device"), first)
        XCTAssertEqual(authorizer.signatureCount, 1)
        let mozilla = try authorizer.authorization(forEndpoint: "https://updates.push.services.mozilla.com/wpush/v2/x")
        XCTAssertNotEqual(mozilla, first)
        XCTAssertEqual(try Self.parse(mozilla).claims["aud"] as? String, "https://updates.push.services.mozilla.com")
        XCTAssertEqual(authorizer.signatureCount, 2)

        clock.advance(by: .seconds(6 * 3600 - 1))
        XCTAssertEqual(try authorizer.authorization(forEndpoint: Self.endpoint), first, "6 h and 1 s of life left: reused")
        XCTAssertEqual(authorizer.signatureCount, 2)
        clock.advance(by: .seconds(2))
        let renewed = try authorizer.authorization(forEndpoint: Self.endpoint)
        XCTAssertNotEqual(renewed, first)
        XCTAssertEqual(try Self.parse(renewed).claims["exp"] as? Int, Int(clock.epochSeconds) + 12 * 3600)
        XCTAssertEqual(authorizer.signatureCount, 3)
        XCTAssertEqual(try authorizer.authorization(forEndpoint: Self.endpoint), renewed)
    }

    func testAClockThatMovedBackADayReSigns() throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let (authorizer, _) = try makeAuthorizer(clock: clock)
        let first = try authorizer.authorization(forEndpoint: Self.endpoint)
        clock.advance(by: .seconds(-13 * 3600))
        let after = try authorizer.authorization(forEndpoint: Self.endpoint)
        XCTAssertNotEqual(after, first, "exp would be 25 h ahead, more than push services accept")
        let exp = try XCTUnwrap(Self.parse(after).claims["exp"] as? Int)
        XCTAssertLessThanOrEqual(exp - Int(clock.epochSeconds), 24 * 3600)
    }

    func testConcurrentCallersShareTheCachedToken() async throws {
        let clock = TestClock(epochSeconds: 1_767_225_600)
        let (authorizer, _) = try makeAuthorizer(clock: clock)
        let warm = try authorizer.authorization(forEndpoint: Self.endpoint)
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask { try authorizer.authorization(forEndpoint: Self.endpoint + "/\(index)") }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        XCTAssertEqual(answers, [warm])
        XCTAssertEqual(authorizer.signatureCount, 1)
    }

    func testSubjectsAndLifetimesPushServicesWouldRefuseAreRefused() throws {
        let key = try VAPIDKey.generate()
        for subject in ["push-ops@example.com", "mailto:", "http://example.com", "mailto:a b@example.com", "mailto:\"x\"@example.com"] {
            XCTAssertThrowsError(try VAPIDAuthorizer(key: key, subject: subject), subject) {
                guard case .invalidSubject? = $0 as? VAPIDError else { return XCTFail("\(subject): \($0)") }
            }
        }
        XCTAssertNoThrow(try VAPIDAuthorizer(key: key, subject: "https://example.com/contact"))
        for lifetime: Int64 in [0, 59, 24 * 3600 + 1] {
            XCTAssertThrowsError(try VAPIDAuthorizer(key: key, subject: Self.subject, lifetime: lifetime)) {
                XCTAssertEqual($0 as? VAPIDError, .invalidLifetime(seconds: lifetime))
            }
        }
        XCTAssertNoThrow(try VAPIDAuthorizer(key: key, subject: Self.subject, lifetime: 24 * 3600))
    }
}
