import OpenSSLCrypto
import TestSupport
import XCTest

/// P-256 ECDH with RFC 8291 Appendix A's two key pairs (the application
/// server's and the user agent's), and the refusal of points off the curve.
final class P256KeyAgreementKeyTests: XCTestCase {
    static let serverPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let serverPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let agentPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let agentPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let sharedSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"

    static func bytes(_ base64URL: String) throws -> [UInt8] {
        try XCTUnwrap(Base64URL.decode(base64URL), base64URL)
    }

    func testARawPrivateKeyGivesTheRFCsPublicPoint() throws {
        let server = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Self.serverPrivate))
        XCTAssertEqual(Base64URL.encode(server.publicKey), Self.serverPublic)
        XCTAssertEqual(Base64URL.encode(try server.rawPrivateKey()), Self.serverPrivate)
        let agent = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Self.agentPrivate))
        XCTAssertEqual(Base64URL.encode(agent.publicKey), Self.agentPublic)
    }

    func testBothSidesDeriveTheRFCsSharedSecret() throws {
        let server = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Self.serverPrivate))
        let agent = try P256KeyAgreementKey(rawPrivateKey: Self.bytes(Self.agentPrivate))
        XCTAssertEqual(Base64URL.encode(try server.sharedSecret(with: agent.publicKey)), Self.sharedSecret)
        XCTAssertEqual(Base64URL.encode(try agent.sharedSecret(with: server.publicKey)), Self.sharedSecret)
    }

    func testGeneratedKeysAgreeAndDiffer() throws {
        let first = try P256KeyAgreementKey.generate()
        let second = try P256KeyAgreementKey.generate()
        XCTAssertNotEqual(first.publicKey, second.publicKey)
        XCTAssertEqual(first.publicKey.count, 65)
        XCTAssertEqual(first.publicKey.first, 0x04)
        XCTAssertEqual(try first.sharedSecret(with: second.publicKey), try second.sharedSecret(with: first.publicKey))
        let restored = try P256KeyAgreementKey(rawPrivateKey: first.rawPrivateKey())
        XCTAssertEqual(restored.publicKey, first.publicKey)
    }

    func testAPointOffTheCurveIsRefused() throws {
        let key = try P256KeyAgreementKey.generate()
        var offCurve = try Self.bytes(Self.agentPublic)
        offCurve[64] ^= 0x01  // y changed: x, y no longer satisfy the curve equation
        for point in [offCurve, Array(offCurve.prefix(33)), [0x04] + [UInt8](repeating: 0, count: 64), []] {
            XCTAssertThrowsError(try key.sharedSecret(with: point)) {
                guard case .invalidPublicKey? = $0 as? CryptoError else { return XCTFail("\($0)") }
            }
            XCTAssertThrowsError(try P256KeyAgreementKey.validatePublicKey(point))
        }
        var compressedPrefix = try Self.bytes(Self.agentPublic)
        compressedPrefix[0] = 0x02
        XCTAssertThrowsError(try P256KeyAgreementKey.validatePublicKey(compressedPrefix))
        XCTAssertNoThrow(try P256KeyAgreementKey.validatePublicKey(Self.bytes(Self.agentPublic)))
    }

    func testScalarsOutsideTheGroupAreRefused() {
        let order = Hex.bytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        for scalar in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xff, count: 32), [UInt8](repeating: 1, count: 31)] {
            XCTAssertThrowsError(try P256KeyAgreementKey(rawPrivateKey: scalar)) {
                guard case .invalidPrivateKey? = $0 as? CryptoError else { return XCTFail("\($0)") }
            }
        }
        var belowOrder = order
        belowOrder[31] -= 1
        XCTAssertNoThrow(try P256KeyAgreementKey(rawPrivateKey: belowOrder))
    }

    func testAnES256KeyReadsAndMakesTheRawForms() throws {
        let key = try ES256SigningKey(rawPrivateKey: Self.bytes(Self.serverPrivate))
        XCTAssertEqual(Base64URL.encode(try key.publicKeyPoint()), Self.serverPublic)
        let fromPEM = try ES256SigningKey(pem: key.privateKeyPEM)
        XCTAssertEqual(Base64URL.encode(try fromPEM.rawPrivateKey()), Self.serverPrivate)
        XCTAssertThrowsError(try ES256SigningKey(rawPrivateKey: [UInt8](repeating: 0, count: 32))) {
            guard case .invalidRawKey? = $0 as? ES256SigningKeyError else { return XCTFail("\($0)") }
        }
    }
}
