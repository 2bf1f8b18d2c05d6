import HTTP2Client
import OpenSSLCrypto
import PayloadBuilder

/// A Google service account, read from its JSON key file: who it is
/// (`client_email`, `project_id`), its RSA key (`private_key`,
/// `private_key_id`) and where to exchange assertions for access tokens
/// (`token_uri`). PROTOCOLS.md B5.
///
/// Required fields: `type` (`service_account`), `project_id`,
/// `private_key_id`, `private_key` (unencrypted PKCS#8 PEM, RSA ≥ 2048 bits),
/// `client_email`, `token_uri` (https). A missing one is a
/// ``ServiceAccountError/missingField(_:)`` naming it.
///
/// The private key is parsed once and kept only as an OpenSSL handle: it is
/// never printed — `description`, `debugDescription` and `dump()` show the
/// identity and `private_key: <redacted>`.
///
/// Thread-safety: immutable; `Sendable`.
public struct ServiceAccount: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The scope FCM HTTP v1 needs.
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Google's longest assertion lifetime: `exp - iat` at most one hour.
    public static let maximumAssertionLifetime: Int64 = 3600

    /// `project_id`: the project `messages:send` paths name.
    public let projectID: String
    /// `private_key_id`: the JWT header's `kid`.
    public let privateKeyID: String
    /// `client_email`: the JWT `iss`.
    public let clientEmail: String
    /// `token_uri`: where grants are posted, and the JWT `aud`.
    public let tokenURI: String
    /// `client_id`, when present.
    public let clientID: String?
    let signingKey: RSASigningKey

    /// Reads a service-account JSON file's bytes.
    public init(json: [UInt8]) throws(ServiceAccountError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(json)
        } catch {
            throw .invalidJSON(error.message)
        }
        guard case .object = document else { throw .invalidJSON("the top level is \(document.typeName)") }
        let type = try Self.string(document, "type")
        guard type == "service_account" else { throw .notAServiceAccount(type: type) }
        projectID = try Self.string(document, "project_id")
        privateKeyID = try Self.string(document, "private_key_id")
        let pem = try Self.string(document, "private_key")
        clientEmail = try Self.string(document, "client_email")
        tokenURI = try Self.string(document, "token_uri")
        guard tokenURI.lowercased().hasPrefix("https://"), tokenURI.utf8.count > 8 else {
            throw .invalidField("token_uri", reason: "must be an https:// URL")
        }
        if case .string(let id)? = document["client_id"] { clientID = id } else { clientID = nil }
        do {
            signingKey = try RSASigningKey(pem: pem)
        } catch {
            switch error {
            case let .invalidKey(reason), let .signing(reason): throw .invalidPrivateKey(reason: reason)
            case let .notRSA(found): throw .notRSA(found: found)
            }
        }
    }

    /// Reads a service-account JSON file's text.
    public init(json: String) throws(ServiceAccountError) {
        try self.init(json: Array(json.utf8))
    }

    private static func string(_ document: JSONValue, _ field: String) throws(ServiceAccountError) -> String {
        guard let value = document[field], value != .null else { throw .missingField(field) }
        guard case .string(let text) = value else { throw .invalidField(field, reason: "must be a string, not \(value.typeName)") }
        guard !text.isEmpty else { throw .missingField(field) }
        return text
    }

    /// The signed JWT-bearer assertion (RFC 7523) for a token grant:
    /// header `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`, claims
    /// `{"iss":<client_email>,"scope":…,"aud":<token_uri>,"iat":…,"exp":…}`
    /// with numeric times, RS256 signature.
    /// - Parameters:
    ///   - scope: space-separated scopes; FCM needs ``firebaseMessagingScope``.
    ///   - issuedAt: `iat`, epoch seconds.
    ///   - lifetime: `exp - iat`, 1 to 3600 seconds.
    public func assertion(scope: String = ServiceAccount.firebaseMessagingScope, issuedAt: Int64,
                          lifetime: Int64 = ServiceAccount.maximumAssertionLifetime) throws(AccessTokenError) -> String {
        guard (1...Self.maximumAssertionLifetime).contains(lifetime) else {
            throw AccessTokenError(.signing, "assertion lifetime \(lifetime) s is outside 1…3600 s")
        }
        var header = JSONWriter(capacity: 96)
        header.beginObject()
        header.member("alg", "RS256")
        header.member("typ", "JWT")
        header.member("kid", privateKeyID)
        header.endObject()
        var claims = JSONWriter(capacity: 256)
        claims.beginObject()
        claims.member("iss", clientEmail)
        claims.member("scope", scope)
        claims.member("aud", tokenURI)
        claims.member("iat", issuedAt)
        claims.member("exp", issuedAt + lifetime)
        claims.endObject()
        let signingInput = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        let signature: [UInt8]
        do {
            signature = try signingKey.sign(Array(signingInput.utf8))
        } catch {
            guard case let .signing(reason) = error else { throw AccessTokenError(.signing, "\(error)") }
            throw AccessTokenError(.signing, reason)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    public var description: String {
        "ServiceAccount(\(clientEmail), project \(projectID), key \(privateKeyID), private_key: <redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "projectID": projectID, "privateKeyID": privateKeyID, "clientEmail": clientEmail,
            "tokenURI": tokenURI, "privateKey": "<redacted>",
        ])
    }
}
