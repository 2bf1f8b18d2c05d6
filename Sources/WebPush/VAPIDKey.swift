public import OpenSSLCrypto

/// An application server's VAPID key pair (RFC 8292 §3): the EC P-256 key
/// that signs the ES256 JWTs push services check, and its public point,
/// which the site hands browsers as `applicationServerKey` and every request
/// carries as `k`.
///
/// Made from configuration in either form deployments keep it in: a PEM
/// private key (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`), or the
/// base64url raw 32-byte private scalar that Web Push tooling prints.
///
/// Thread-safety: immutable; the signing key is safe to share.
public struct VAPIDKey: Sendable {
    /// The key that signs the JWTs.
    public let signingKey: ES256SigningKey
    /// The public key, the 65-byte uncompressed point.
    public let publicKey: [UInt8]

    /// The public key in base64url: VAPID's `k` and the browsers' `applicationServerKey`.
    public var publicKeyBase64URL: String { Base64URL.encode(publicKey) }

    /// The private key as unencrypted PKCS#8 PEM. A secret.
    public var privateKeyPEM: String { signingKey.privateKeyPEM }

    /// The private key as base64url of its raw 32-byte scalar. A secret.
    public func privateKeyBase64URL() throws(VAPIDKeyError) -> String {
        do {
            return Base64URL.encode(try signingKey.rawPrivateKey())
        } catch {
            throw .invalidKey(reason: error.description)
        }
    }

    /// A key from a configuration value: PEM when it holds `-----BEGIN`,
    /// otherwise the base64url raw private key (surrounding white space ignored).
    /// - Throws: ``VAPIDKeyError``, naming the form it tried and what is wrong.
    public init(configurationValue value: String) throws(VAPIDKeyError) {
        let trimmed = String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !trimmed.isEmpty else { throw .empty }
        if trimmed.contains("-----BEGIN") {
            try self.init(pem: trimmed)
        } else {
            try self.init(base64URLPrivateKey: trimmed)
        }
    }

    /// A key from a PEM private key.
    /// - Throws: ``VAPIDKeyError/invalidKey(reason:)`` for unreadable,
    ///   encrypted, or non-P-256 keys.
    public init(pem: String) throws(VAPIDKeyError) {
        do {
            try self.init(signingKey: ES256SigningKey(pem: pem))
        } catch let error as VAPIDKeyError {
            throw error
        } catch {
            throw .invalidKey(reason: "PEM: \(error)")
        }
    }

    /// A key from the base64url of its raw 32-byte private scalar.
    /// - Throws: ``VAPIDKeyError/notBase64URL``, ``VAPIDKeyError/wrongRawLength(_:)``
    ///   or ``VAPIDKeyError/invalidKey(reason:)``.
    public init(base64URLPrivateKey text: String) throws(VAPIDKeyError) {
        guard let raw = Base64URL.decode(text, allowingPadding: true) else { throw .notBase64URL }
        guard raw.count == 32 else { throw .wrongRawLength(raw.count) }
        do {
            try self.init(signingKey: ES256SigningKey(rawPrivateKey: raw))
        } catch let error as VAPIDKeyError {
            throw error
        } catch {
            throw .invalidKey(reason: "\(error)")
        }
    }

    /// Wraps a P-256 signing key.
    /// - Throws: ``VAPIDKeyError/invalidKey(reason:)`` if its public point cannot be read.
    public init(signingKey: ES256SigningKey) throws(VAPIDKeyError) {
        self.signingKey = signingKey
        do {
            publicKey = try signingKey.publicKeyPoint()
        } catch {
            throw .invalidKey(reason: error.description)
        }
    }

    /// A new random key pair (`pushgw vapid-keys`, tests, the demo).
    public static func generate() throws(VAPIDKeyError) -> VAPIDKey {
        do {
            return try VAPIDKey(signingKey: ES256SigningKey.generate())
        } catch let error as VAPIDKeyError {
            throw error
        } catch {
            throw .invalidKey(reason: "\(error)")
        }
    }
}

/// Why a ``VAPIDKey`` could not be made from configuration.
public enum VAPIDKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value is empty.
    case empty
    /// Not PEM, and not base64url either.
    case notBase64URL
    /// Base64url, but not of 32 bytes (the raw private key's length).
    case wrongRawLength(Int)
    /// A readable form that does not hold a usable P-256 private key.
    case invalidKey(reason: String)

    public var description: String {
        switch self {
        case .empty:
            "the VAPID private key is empty"
        case .notBase64URL:
            "the VAPID private key is neither PEM (-----BEGIN PRIVATE KEY-----) nor base64url of the raw 32-byte key"
        case let .wrongRawLength(count):
            "a raw VAPID private key is 32 bytes (43 base64url characters), this one is \(count) bytes"
            + (count == 65 ? ": that is the length of a public key" : "")
        case let .invalidKey(reason):
            "the VAPID private key is not a usable P-256 key: \(reason)"
        }
    }
}
