/// Why a key agreement, key derivation, AEAD or random-bytes operation of
/// this module failed.
///
/// `invalidPrivateKey`, `invalidPublicKey` and `invalidArgument` describe the
/// input (a wrong length, a point off the curve): retrying with the same input
/// fails the same way. `authenticationFailed` is AES-GCM refusing a
/// ciphertext whose tag does not match (tampered, or the wrong key). `openSSL`
/// names an OpenSSL call that failed and what its error queue said.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a usable P-256 private key (a scalar of the wrong length, zero, or
    /// not below the group order).
    case invalidPrivateKey(reason: String)
    /// Not a usable P-256 public key (not 65 bytes starting 0x04, or a point
    /// that is not on the curve).
    case invalidPublicKey(reason: String)
    /// A key, nonce or output length outside what the algorithm takes.
    case invalidArgument(reason: String)
    /// AES-GCM: the tag does not authenticate the ciphertext under this key and nonce.
    case authenticationFailed
    /// An OpenSSL call failed; `call` names it, `reason` is OpenSSL's error queue.
    case openSSL(call: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidPrivateKey(reason): "invalid P-256 private key: \(reason)"
        case let .invalidPublicKey(reason): "invalid P-256 public key: \(reason)"
        case let .invalidArgument(reason): "invalid argument: \(reason)"
        case .authenticationFailed: "AES-GCM authentication failed (wrong key or altered ciphertext)"
        case let .openSSL(call, reason): "\(call) failed: \(reason)"
        }
    }

    /// `.openSSL` for `call`, with the calling thread's error queue (drained).
    static func failed(_ call: String) -> CryptoError {
        .openSSL(call: call, reason: OpenSSLErrors.drain())
    }
}
