import HTTP2Client
@testable import HTTP2Client
import APNsSimulator
@testable import OpenSSLCrypto
import COpenSSL
import FCMClient
import Foundation
import XCTest

/// Reading the service-account JSON file: the fields Google writes, typed
/// errors naming what is missing, and a key that never shows up in text.
final class ServiceAccountTests: XCTestCase {
    static let tokenURI = "https://127.0.0.1:9/token"

    private func accountJSON(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> [UInt8] {
        let account = try FCMTestbedKeys.account()
        var object = try JSONSerialization.jsonObject(with: Data(account.json(tokenURI: Self.tokenURI).utf8)) as! [String: Any]
        edit(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    func testAGoogleServiceAccountFileIsReadWithEveryField() throws {
        let account = try FCMTestbedKeys.account()
        let parsed = try ServiceAccount(json: account.json(tokenURI: Self.tokenURI))
        XCTAssertEqual(parsed.projectID, FCMTestbed.projectID)
        XCTAssertEqual(parsed.clientEmail, account.registration.clientEmail)
        XCTAssertEqual(parsed.privateKeyID, account.registration.privateKeyID)
        XCTAssertEqual(parsed.tokenURI, Self.tokenURI)
        XCTAssertEqual(parsed.clientID, "100000000000000000001")
    }

    func testEachMissingRequiredFieldIsNamed() throws {
        for field in ["type", "project_id", "private_key_id", "private_key", "client_email", "token_uri"] {
            let json = try accountJSON { $0.removeValue(forKey: field) }
            XCTAssertThrowsError(try ServiceAccount(json: json), field) { error in
                XCTAssertEqual(error as? ServiceAccountError, .missingField(field))
                XCTAssertTrue("\(error)".contains(field))
            }
            let empty = try accountJSON { $0[field] = "" }
            XCTAssertThrowsError(try ServiceAccount(json: empty), field) { error in
                XCTAssertEqual(error as? ServiceAccountError, .missingField(field))
            }
        }
    }

    func testWrongTypesAndOtherCredentialKindsAreRefused() throws {
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["client_email"] = 42 })) { error in
            guard case .invalidField("client_email", _)? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["type"] = "authorized_user" })) { error in
            XCTAssertEqual(error as? ServiceAccountError, .notAServiceAccount(type: "authorized_user"))
        }
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["token_uri"] = "http://127.0.0.1/token" })) { error in
            guard case .invalidField("token_uri", _)? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ServiceAccount(json: Array("[1]".utf8))) { error in
            guard case .invalidJSON? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ServiceAccount(json: Array("{".utf8))) { error in
            guard case .invalidJSON? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
    }

    func testANonRSAKeyIsRefused() throws {
        let ecKey = try ES256SigningKey.generate().privateKeyPEM
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["private_key"] = ecKey })) { error in
            guard case .notRSA? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" })) { error in
            guard case .invalidPrivateKey? = error as? ServiceAccountError else { return XCTFail("\(error)") }
        }
    }

    /// An encrypted key is refused as such, without a password prompt.
    func testAnEncryptedKeyIsRefusedWithoutAPrompt() throws {
        let encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"
        XCTAssertThrowsError(try ServiceAccount(json: try accountJSON { $0["private_key"] = encrypted })) { error in
            guard case let .invalidPrivateKey(reason)? = error as? ServiceAccountError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("encrypted"), reason)
        }
    }

    func testThePrivateKeyNeverAppearsInText() throws {
        let account = try FCMTestbedKeys.account()
        let parsed = try ServiceAccount(json: account.json(tokenURI: Self.tokenURI))
        let keyLine = account.privateKeyPEM.split(separator: "\n")[1]
        var dumped = ""
        dump(parsed, to: &dumped)
        for text in [parsed.description, parsed.debugDescription, "\(parsed)", String(reflecting: parsed), dumped] {
            XCTAssertFalse(text.contains(keyLine), text)
            XCTAssertFalse(text.contains("BEGIN PRIVATE KEY"), text)
        }
        XCTAssertTrue(parsed.description.contains(account.registration.clientEmail))
    }

    func testTheAssertionVerifiesWithAnIndependentOpenSSLPath() throws {
        let account = try FCMTestbedKeys.account()
        let parsed = try ServiceAccount(json: account.json(tokenURI: Self.tokenURI))
        let jwt = try parsed.assertion(issuedAt: 1_767_225_600)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 3)
        let header = try JSONSerialization.jsonObject(with: base64URLDecode(parts[0])) as! [String: Any]
        XCTAssertEqual(header as NSDictionary, ["alg": "RS256", "typ": "JWT", "kid": account.registration.privateKeyID])
        XCTAssertEqual(String(decoding: base64URLDecode(parts[1]), as: UTF8.self),
                       #"{"iss":"\#(account.registration.clientEmail)","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"\#(Self.tokenURI)","iat":1767225600,"exp":1767229200}"#)
        let signature = base64URLDecode(parts[2])
        XCTAssertEqual(signature.count, 256)
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        XCTAssertTrue(try rs256Verify(publicKeyPEM: account.registration.publicKeyPEM, message: signingInput, signature: Array(signature)))
        var tampered = signingInput
        tampered[tampered.count - 1] ^= 1
        XCTAssertFalse(try rs256Verify(publicKeyPEM: account.registration.publicKeyPEM, message: tampered, signature: Array(signature)))
    }
}

/// Decodes unpadded base64url with Foundation (independent of the client's encoder).
func base64URLDecode(_ text: String) -> Data {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64) ?? Data()
}

/// Verifies RSASSA-PKCS1-v1_5 SHA-256 directly with OpenSSL's
/// EVP_PKEY_verify over a digest computed by EVP_Digest: a second path,
/// independent of both the client's signer and the simulator's verifier.
func rs256Verify(publicKeyPEM: String, message: [UInt8], signature: [UInt8]) throws -> Bool {
    let pem = Array(publicKeyPEM.utf8)
    let key: OpaquePointer? = pem.withUnsafeBytes { raw in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
    guard let key else { throw XCTSkip("cannot read the public key") }
    defer { EVP_PKEY_free(key) }
    var digest = [UInt8](repeating: 0, count: 32)
    var digestLength: UInt32 = 0
    guard EVP_Digest(message, message.count, &digest, &digestLength, EVP_sha256(), nil) == 1 else { return false }
    guard let context = EVP_PKEY_CTX_new(key, nil) else { return false }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_verify_init(context) == 1,
          EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
          EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1 else { return false }
    return EVP_PKEY_verify(context, signature, signature.count, digest, Int(digestLength)) == 1
}
