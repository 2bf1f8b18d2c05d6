/// Why a service-account JSON file cannot be used. Never carries key material.
public enum ServiceAccountError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a JSON object.
    case invalidJSON(String)
    /// A required field is absent or empty, e.g. `client_email`.
    case missingField(String)
    /// A field has the wrong JSON type or an unusable value.
    case invalidField(String, reason: String)
    /// `type` is not `service_account` (an authorized-user or external-account file).
    case notAServiceAccount(type: String)
    /// `private_key` is not a PEM private key OpenSSL can read (unencrypted PKCS#8).
    case invalidPrivateKey(reason: String)
    /// `private_key` is not an RSA key; RS256 needs one.
    case notRSA(found: String)

    public var description: String {
        switch self {
        case .invalidJSON(let reason):
            return "service account: not a JSON object (\(reason))"
        case .missingField(let field):
            return "service account: the field \"\(field)\" is missing or empty"
        case .invalidField(let field, let reason):
            return "service account: the field \"\(field)\" \(reason)"
        case .notAServiceAccount(let type):
            return "service account: \"type\" is \"\(type)\", expected \"service_account\""
        case .invalidPrivateKey(let reason):
            return "service account: \"private_key\" cannot be read: \(reason)"
        case .notRSA(let found):
            return "service account: \"private_key\" is \(found), not an RSA key (RS256 needs RSA)"
        }
    }
}
