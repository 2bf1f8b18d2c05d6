internal import COpenSSL

extension ES256SigningKey {
    /// A key from its raw 32-byte private scalar (big-endian), the form Web
    /// Push tooling prints for a VAPID key; the public point is derived.
    /// - Throws: ``ES256SigningKeyError/invalidRawKey(reason:)`` for a scalar
    ///   of the wrong length or outside 1…n−1; ``ES256SigningKeyError/openSSL(call:reason:)``.
    public convenience init(rawPrivateKey: [UInt8]) throws(ES256SigningKeyError) {
        let key: OpaquePointer
        do {
            key = try P256Key.keyPair(scalar: rawPrivateKey)
        } catch {
            throw Self.translate(error)
        }
        let pems = try Self.checkedPEMs(consuming: key)
        self.init(owning: key, publicKeyPEM: pems.publicKey, privateKeyPEM: pems.privateKey)
    }

    /// The public key as the 65-byte uncompressed point `0x04 ‖ X ‖ Y`: VAPID's
    /// `k` parameter and a browser's `applicationServerKey` (RFC 8292 §3.2).
    public func publicKeyPoint() throws(ES256SigningKeyError) -> [UInt8] {
        do {
            return try P256Key.point(of: key)
        } catch {
            throw Self.translate(error)
        }
    }

    /// The private scalar, 32 bytes big-endian. A secret: for printing a newly
    /// generated key pair (`pushgw vapid-keys`) and for tests.
    public func rawPrivateKey() throws(ES256SigningKeyError) -> [UInt8] {
        do {
            return try P256Key.scalar(of: key)
        } catch {
            throw Self.translate(error)
        }
    }

    private static func translate(_ error: CryptoError) -> ES256SigningKeyError {
        switch error {
        case let .invalidPrivateKey(reason), let .invalidPublicKey(reason), let .invalidArgument(reason):
            .invalidRawKey(reason: reason)
        case .authenticationFailed:
            .openSSL(call: "P-256 key", reason: error.description)
        case let .openSSL(call, reason):
            .openSSL(call: call, reason: reason)
        }
    }
}
