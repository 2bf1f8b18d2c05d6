internal import COpenSSL

/// A service account's RSA private key, signing RS256 (RSASSA-PKCS1-v1_5
/// with SHA-256, RFC 7518 §3.3) JWT assertions.
///
/// Ownership: owns one `EVP_PKEY`, freed in `deinit`, which never leaves
/// this type. The PEM text is not kept.
//
// @unchecked Sendable: the only stored property is a `let` pointer to an
// `EVP_PKEY` that is fully built in `init` and never mutated afterwards (no
// setter is ever called on it); each `sign` call makes its own
// `EVP_MD_CTX`, and OpenSSL 3 documents concurrent signing with one shared,
// unmodified key as safe when each thread uses its own context
// (openssl-threads(7)).
package final class RSASigningKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Reads an unencrypted PEM private key (PKCS#8 `PRIVATE KEY`, or
    /// `RSA PRIVATE KEY`) and checks that it is RSA of at least 2048 bits.
    package init(pem: String) throws(RSASigningKeyError) {
        let parsed: OpaquePointer
        do {
            parsed = try PEMPrivateKey.read(Array(pem.utf8))
        } catch {
            switch error {
            case .empty, .tooLarge: throw .invalidKey(reason: "empty or too large")
            case .encrypted: throw .invalidKey(reason: "the key is encrypted")
            case let .unreadable(reason): throw .invalidKey(reason: reason)
            }
        }
        let type = EVP_PKEY_get_base_id(parsed)
        guard type == EVP_PKEY_RSA else {
            let name = type == EVP_PKEY_EC ? "an EC key" : "a key of type \(type)"
            EVP_PKEY_free(parsed)
            throw .notRSA(found: name)
        }
        guard EVP_PKEY_get_bits(parsed) >= 2048 else {
            let bits = EVP_PKEY_get_bits(parsed)
            EVP_PKEY_free(parsed)
            throw .invalidKey(reason: "an RSA key of \(bits) bits; at least 2048 are required")
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The RS256 signature of `message` (as many bytes as the modulus).
    package func sign(_ message: [UInt8]) throws(RSASigningKeyError) -> [UInt8] {
        OpenSSLErrors.clear()
        guard let context = EVP_MD_CTX_new() else {
            throw RSASigningKeyError.signing(OpenSSLErrors.failure("EVP_MD_CTX_new"))
        }
        defer { EVP_MD_CTX_free(context) }
        // An RSA key's default padding for EVP_DigestSign is PKCS #1 v1.5.
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw RSASigningKeyError.signing(OpenSSLErrors.failure("EVP_DigestSignInit"))
        }
        var length = Int(EVP_PKEY_get_size(key))
        guard length > 0 else { throw RSASigningKeyError.signing(OpenSSLErrors.failure("EVP_PKEY_get_size")) }
        var signature = [UInt8](repeating: 0, count: length)
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard status == 1 else { throw RSASigningKeyError.signing(OpenSSLErrors.failure("EVP_DigestSign")) }
        return Array(signature.prefix(length))
    }
}

/// Why an `RSASigningKey` could not be read or could not sign.
package enum RSASigningKeyError: Error, Sendable, Equatable {
    /// Not a readable, unencrypted RSA private key of at least 2048 bits.
    case invalidKey(reason: String)
    /// A readable private key of another type (`found` names it).
    case notRSA(found: String)
    /// An OpenSSL call failed while signing; the text names the call.
    case signing(String)
}
