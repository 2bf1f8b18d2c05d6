import APNsHTTP2
@testable import HTTP2Client
import COpenSSL
@testable import OpenSSLCrypto
import COpenSSLShims
import Foundation
import XCTest

/// ES256 keys and the APNs JWT, checked against an independent verifier:
/// DER is rebuilt from R‖S here and verified with EVP_DigestVerify using a
/// key loaded from `publicKeyPEM`, without going through the code under test.
final class ProviderTokenTests: XCTestCase {
    private let keyID = "ABC123DEFG"
    private let teamID = "DEF123GHIJ"
    private let issuedAt: Int64 = 1_700_000_000

    // MARK: JWT shape

    func testTheJWTHasThreeBase64URLPartsWhoseHeaderAndClaimsAreExactlyTheExpectedJSON() throws {
        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: ES256SigningKey.generate())
        let parts = token.jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 3)
        let base64URLAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for part in parts {
            XCTAssertFalse(part.isEmpty)
            XCTAssertTrue(part.allSatisfy(base64URLAlphabet.contains), "not unpadded base64url: \(part)")
        }
        let header = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[0]))
        let claims = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[1]))
        XCTAssertEqual(String(decoding: header, as: UTF8.self), #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        XCTAssertEqual(String(decoding: claims, as: UTF8.self), #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        XCTAssertEqual(token.keyID, keyID)
        XCTAssertEqual(token.teamID, teamID)
        XCTAssertEqual(token.issuedAt, issuedAt)
    }

    func testIssuedAtParsesAsAJSONNumberNeverAString() throws {
        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: ES256SigningKey.generate())
        let claims = try TokenTestSupport.claims(of: token.jwt)
        XCTAssertEqual(Set(claims.keys), ["iss", "iat"])
        XCTAssertNil(claims["iat"] as? String)
        let iat = try XCTUnwrap(claims["iat"] as? NSNumber)
        XCTAssertEqual(iat.int64Value, issuedAt)
        XCTAssertEqual(claims["iss"] as? String, teamID)
    }

    func testMalformedKeyAndTeamIDsAreRefusedWithTypedErrors() throws {
        let key = try ES256SigningKey.generate()
        for bad in ["ABC123DEF", "ABC123DEFGH", "abc123defg", "ABC123DEF-", "ÄBC123DEFG", ""] {
            XCTAssertThrowsError(try APNsProviderToken(keyID: bad, teamID: teamID, issuedAt: issuedAt, signingKey: key)) {
                XCTAssertEqual($0 as? ProviderTokenError, .invalidKeyID(bad))
            }
            XCTAssertThrowsError(try APNsProviderToken(keyID: keyID, teamID: bad, issuedAt: issuedAt, signingKey: key)) {
                XCTAssertEqual($0 as? ProviderTokenError, .invalidTeamID(bad))
            }
        }
    }

    func testTheDescriptionNamesTheTokenButNotItsSignature() throws {
        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: ES256SigningKey.generate())
        XCTAssertEqual(String(describing: token), "APNsProviderToken(kid: ABC123DEFG, iss: DEF123GHIJ, iat: 1700000000)")
        XCTAssertFalse(String(describing: token).contains(token.jwt.split(separator: ".")[2]))
    }

    // MARK: Signatures

    func testTheSignatureIs64RawBytesAndVerifiesWithAnIndependentVerifier() throws {
        let key = try ES256SigningKey.generate()
        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: key)
        let parts = token.jwt.split(separator: ".").map(String.init)
        let signature = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[2]))
        XCTAssertEqual(signature.count, 64)
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        XCTAssertTrue(try TokenTestSupport.verify(rawSignature: signature, message: signingInput, publicKeyPEM: key.publicKeyPEM))
    }

    func testATamperedClaimsPartOrSignatureFailsVerification() throws {
        let key = try ES256SigningKey.generate()
        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: key)
        let parts = token.jwt.split(separator: ".").map(String.init)
        let signature = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[2]))
        let forgedClaims = TokenTestSupport.base64URLEncode(Array(#"{"iss":"DEF123GHIJ","iat":1700003600}"#.utf8))
        XCTAssertFalse(try TokenTestSupport.verify(rawSignature: signature, message: Array((parts[0] + "." + forgedClaims).utf8), publicKeyPEM: key.publicKeyPEM))

        var flipped = signature
        flipped[40] ^= 0x01
        XCTAssertFalse(try TokenTestSupport.verify(rawSignature: flipped, message: Array((parts[0] + "." + parts[1]).utf8), publicKeyPEM: key.publicKeyPEM))

        let otherKey = try ES256SigningKey.generate()
        XCTAssertFalse(try TokenTestSupport.verify(rawSignature: signature, message: Array((parts[0] + "." + parts[1]).utf8), publicKeyPEM: otherKey.publicKeyPEM))
    }

    /// About one signature in 128 has an R or S with a leading zero byte, so
    /// 600 signatures exercise the left-padding with near certainty.
    func testEverySignatureIsLeftPaddedTo64BytesAndVerifies() throws {
        let key = try ES256SigningKey.generate()
        var shortHalves = 0
        // A half starts with a zero byte about once in 128 signatures: go on
        // past 600 until one has (at most 5,000: missing it then has odds
        // of e^-39; a fixed 600 missed it about once in 110 runs).
        for index in 0..<5_000 where index < 600 || shortHalves == 0 {
            let message = Array("message \(index)".utf8)
            let signature = try key.sign(message)
            XCTAssertEqual(signature.count, 64)
            if signature[0] == 0 || signature[32] == 0 { shortHalves += 1 }
            XCTAssertTrue(try TokenTestSupport.verify(rawSignature: signature, message: message, publicKeyPEM: key.publicKeyPEM), "signature \(index)")
        }
        XCTAssertGreaterThan(shortHalves, 0, "no padded half seen; the padding path went untested")
    }

    func testAnEmptyMessageCanBeSigned() throws {
        let key = try ES256SigningKey.generate()
        let signature = try key.sign([])
        XCTAssertTrue(try TokenTestSupport.verify(rawSignature: signature, message: [], publicKeyPEM: key.publicKeyPEM))
    }

    // MARK: PEM

    func testAGeneratedKeyRoundTripsThroughPKCS8PEMAndStillSignsVerifiably() throws {
        let original = try ES256SigningKey.generate()
        XCTAssertTrue(original.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        XCTAssertTrue(original.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))

        let reloaded = try ES256SigningKey(pem: original.privateKeyPEM)
        XCTAssertEqual(reloaded.publicKeyPEM, original.publicKeyPEM)
        XCTAssertEqual(reloaded.privateKeyPEM, original.privateKeyPEM)
        let fromBytes = try ES256SigningKey(pem: Array(original.privateKeyPEM.utf8))
        XCTAssertEqual(fromBytes.publicKeyPEM, original.publicKeyPEM)

        let token = try APNsProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingKey: reloaded)
        let parts = token.jwt.split(separator: ".").map(String.init)
        let signature = try XCTUnwrap(TokenTestSupport.base64URLDecode(parts[2]))
        XCTAssertTrue(try TokenTestSupport.verify(rawSignature: signature, message: Array((parts[0] + "." + parts[1]).utf8), publicKeyPEM: original.publicKeyPEM))
    }

    func testAnRSAKeyIsRefusedAsNotP256() throws {
        let pem = try TokenTestSupport.pkcs8PEM(ofNewKey: { pgw_evp_rsa_gen(2048) })
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertThrowsError(try ES256SigningKey(pem: pem)) {
            XCTAssertEqual($0 as? ES256SigningKeyError, .notECP256(found: "RSA"))
        }
    }

    func testAP384KeyIsRefusedAsNotP256() throws {
        let pem = try TokenTestSupport.pkcs8PEM(ofNewKey: { TokenTestSupport.generateECKey(curve: "secp384r1") })
        XCTAssertThrowsError(try ES256SigningKey(pem: pem)) {
            XCTAssertEqual($0 as? ES256SigningKeyError, .notECP256(found: "EC secp384r1"))
        }
    }

    func testGarbageEmptyAndPublicKeyPEMsAreRefusedAsInvalidPEM() throws {
        let publicOnly = try ES256SigningKey.generate().publicKeyPEM
        let truncated = String(try ES256SigningKey.generate().privateKeyPEM.prefix(100))
        for input in ["not a key", "", publicOnly, truncated, "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n"] {
            XCTAssertThrowsError(try ES256SigningKey(pem: input), "accepted \(input.debugDescription)") { error in
                guard case .invalidPEM(let reason)? = error as? ES256SigningKeyError else {
                    return XCTFail("expected invalidPEM, got \(error)")
                }
                XCTAssertFalse(reason.isEmpty)
            }
        }
        XCTAssertThrowsError(try ES256SigningKey(pem: [0x30, 0x82, 0x01, 0x00])) {
            guard case .invalidPEM? = $0 as? ES256SigningKeyError else { return XCTFail("expected invalidPEM, got \($0)") }
        }
    }

    func testTheInvalidPEMErrorNamesTheCallAndOpenSSLsReason() throws {
        XCTAssertThrowsError(try ES256SigningKey(pem: "not a key")) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("PEM_read_bio_PrivateKey failed"), text)
            XCTAssertTrue(text.contains("error:"), "no OpenSSL error string in: \(text)")
        }
    }

    func testAnEncryptedPKCS8KeyIsRefusedWithoutPromptingForAPassword() throws {
        let pem = try TokenTestSupport.encryptedPKCS8PEM(of: ES256SigningKey.generate().privateKeyPEM, password: "secret")
        XCTAssertTrue(pem.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        XCTAssertThrowsError(try ES256SigningKey(pem: pem)) {
            XCTAssertEqual($0 as? ES256SigningKeyError, .encryptedPEM)
        }
    }

    /// The legacy "Proc-Type: 4,ENCRYPTED" form is not caught by the header
    /// check; the refusing password callback must keep OpenSSL from prompting.
    func testALegacyEncryptedSEC1KeyIsRefusedWithoutPromptingForAPassword() throws {
        let pem = try TokenTestSupport.encryptedSEC1PEM(of: ES256SigningKey.generate().privateKeyPEM, password: "secret")
        XCTAssertTrue(pem.contains("Proc-Type: 4,ENCRYPTED"))
        XCTAssertThrowsError(try ES256SigningKey(pem: pem)) { error in
            guard case .invalidPEM? = error as? ES256SigningKeyError else { return XCTFail("expected invalidPEM, got \(error)") }
        }
    }

    func testASEC1ECPrivateKeyPEMOnP256IsAccepted() throws {
        let original = try ES256SigningKey.generate()
        let sec1 = try TokenTestSupport.sec1PEM(of: original.privateKeyPEM)
        XCTAssertTrue(sec1.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        XCTAssertEqual(try ES256SigningKey(pem: sec1).publicKeyPEM, original.publicKeyPEM)
    }
}

/// Independent helpers: none of them calls the code under test.
enum TokenTestSupport {
    struct OpenSSLFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if text.contains("=") { return nil }
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The decoded claims object of a compact JWT.
    static func claims(of jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".").map(String.init)
        guard parts.count == 3, let bytes = base64URLDecode(parts[1]),
              let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { throw OpenSSLFailure(description: "unreadable claims in \(jwt)") }
        return object
    }

    /// Rebuilds the DER ECDSA-Sig-Value from R‖S (ECDSA_SIG_new, BN_bin2bn,
    /// ECDSA_SIG_set0, i2d_ECDSA_SIG) and verifies it with EVP_DigestVerify
    /// (SHA-256) using a key read from SubjectPublicKeyInfo PEM.
    static func verify(rawSignature: [UInt8], message: [UInt8], publicKeyPEM: String) throws -> Bool {
        guard rawSignature.count == 64 else { return false }
        let publicKey = try readPublicKey(publicKeyPEM)
        defer { EVP_PKEY_free(publicKey) }

        guard let signature = ECDSA_SIG_new() else { throw failure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = rawSignature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = rawSignature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            throw failure("BN_bin2bn/ECDSA_SIG_set0")
        }
        let derLength = i2d_ECDSA_SIG(signature, nil)
        guard derLength > 0 else { throw failure("i2d_ECDSA_SIG (length)") }
        var der = [UInt8](repeating: 0, count: Int(derLength))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == derLength else { throw failure("i2d_ECDSA_SIG") }

        guard let context = EVP_MD_CTX_new() else { throw failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, publicKey) == 1 else {
            throw failure("EVP_DigestVerifyInit")
        }
        let result = message.withUnsafeBufferPointer { input in
            EVP_DigestVerify(context, der, der.count, input.baseAddress, input.count)
        }
        ERR_clear_error()
        return result == 1
    }

    static func readPublicKey(_ pem: String) throws -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { throw failure("PEM_read_bio_PUBKEY") }
        return key
    }

    static func readPrivateKey(_ pem: String) throws -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw failure("PEM_read_bio_PrivateKey") }
        return key
    }

    /// An EC key on `curve`, via the EVP_PKEY_CTX keygen calls (no shim needed).
    static func generateECKey(curve: String) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, curve) == 1,
              EVP_PKEY_generate(context, &key) == 1
        else { return nil }
        return key
    }

    /// Generates a key with `make` and writes it as unencrypted PKCS#8 PEM.
    static func pkcs8PEM(ofNewKey make: () -> OpaquePointer?) throws -> String {
        guard let key = make() else { throw failure("key generation") }
        defer { EVP_PKEY_free(key) }
        return try writePEM { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    /// Re-encodes a PKCS#8 PEM as password-protected PKCS#8 (AES-256-CBC).
    static func encryptedPKCS8PEM(of pem: String, password: String) throws -> String {
        let key = try readPrivateKey(pem)
        defer { EVP_PKEY_free(key) }
        var passwordBytes = Array(password.utf8CString)
        return try writePEM { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), &passwordBytes, Int32(password.utf8.count), nil, nil)
        }
    }

    /// Re-encodes a PKCS#8 PEM as legacy encrypted SEC1 (PEM headers, AES-256-CBC).
    static func encryptedSEC1PEM(of pem: String, password: String) throws -> String {
        let key = try readPrivateKey(pem)
        defer { EVP_PKEY_free(key) }
        var passwordBytes = Array(password.utf8)
        return try writePEM { bio in
            PEM_write_bio_PrivateKey_traditional(bio, key, EVP_aes_256_cbc(), &passwordBytes, Int32(passwordBytes.count), nil, nil)
        }
    }

    /// Re-encodes a PKCS#8 PEM as the older SEC1 `EC PRIVATE KEY` PEM.
    static func sec1PEM(of pem: String) throws -> String {
        let key = try readPrivateKey(pem)
        defer { EVP_PKEY_free(key) }
        // The "traditional" format of an EC key is SEC1.
        return try writePEM { PEM_write_bio_PrivateKey_traditional($0, key, nil, nil, 0, nil, nil) }
    }

    private static func writePEM(_ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw failure("PEM write") }
        var data: UnsafePointer<CChar>?
        let count = pgw_bio_get_mem_data(bio, &data)
        guard count > 0, let data else { throw failure("BIO_get_mem_data") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }

    private static func failure(_ call: String) -> OpenSSLFailure {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLFailure(description: "\(call) failed: \(reasons.joined(separator: "; "))")
    }
}
