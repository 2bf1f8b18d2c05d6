/// The provider-token keys a simulator accepts, parsed once per simulator
/// and shared by every connection's `ProviderTokenVerifier`, so that a
/// connection's first token no longer parses a PEM (about 8M instructions
/// with OpenSSL 3's decoders, per connection).
///
/// A key that is not a P-256 key is left out: a token naming it is invalid,
/// as it was when each connection parsed its own.
//
// @unchecked Sendable: the only stored property is a `let` dictionary,
// filled in `init` and never changed. Each `OwnedKey`'s `EVP_PKEY` is fully
// built before `init` returns and never mutated afterwards (no setter is
// ever called on it; `ES256Verifier.verify` only reads it, with its own
// `EVP_MD_CTX` per call), and OpenSSL 3 documents concurrent use of one
// shared, unmodified key as safe when each thread uses its own context
// (openssl-threads(7)); ES256SigningKey and RSASigningKey rely on the same
// rule. The keys are freed when the last holder releases this object.
final class ProviderKeyring: @unchecked Sendable {
    private let keys: [UTF8Key: OwnedKey]

    /// Parses `pems` (key ID → PEM).
    init(pems: [String: String]) {
        var keys: [UTF8Key: OwnedKey] = [:]
        for (keyID, pem) in pems {
            if let key = try? OwnedKey.publicKey(pem: pem), key.isP256 { keys[UTF8Key(keyID)] = key }
        }
        self.keys = keys
    }

    /// The P-256 key registered as `keyID` (the same bytes), if any.
    func key(for keyID: String) -> OwnedKey? { keys[UTF8Key(keyID)] }
}
