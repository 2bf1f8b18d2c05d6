/// Why an ``ES256SigningKey`` could not be loaded, generated or used.
///
/// Loading errors (`invalidPEM`, `encryptedPEM`, `notECP256`) are
/// configuration problems: the `.p8` file is wrong and retrying will not help.
/// `openSSL` reports an OpenSSL call that failed, naming the call and what
/// OpenSSL's error queue said about it.
public enum ES256SigningKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is not a readable PEM private key (garbage, truncated, DER, a certificate…).
    case invalidPEM(reason: String)
    /// The PEM is an encrypted PKCS#8 key; APNs `.p8` files are not encrypted and
    /// this type never prompts for a password.
    case encryptedPEM
    /// The key is readable but is not an EC key on P-256 (ES256 needs exactly
    /// that); `found` names what it is, e.g. `RSA` or `EC secp384r1`.
    case notECP256(found: String)
    /// The raw private key (the 32-byte scalar of the form browsers' VAPID
    /// tooling prints) is not a P-256 private key; `reason` says why.
    case invalidRawKey(reason: String)
    /// An OpenSSL call failed; `call` names it, `reason` is OpenSSL's error queue.
    case openSSL(call: String, reason: String)

    public var description: String {
        switch self {
        case .invalidPEM(let reason):
            return "not a readable PEM private key: \(reason)"
        case .encryptedPEM:
            return "encrypted private keys are not supported (APNs .p8 keys are unencrypted PKCS#8)"
        case .notECP256(let found):
            return "ES256 needs an EC P-256 private key, found \(found)"
        case .invalidRawKey(let reason):
            return "not a raw P-256 private key: \(reason)"
        case .openSSL(let call, let reason):
            return "\(call) failed: \(reason)"
        }
    }
}
