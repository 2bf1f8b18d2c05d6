/// A service account the simulator's token endpoint accepts assertions
/// from: its `client_email` (the JWT `iss`), its `private_key_id` (the JWT
/// `kid`) and the public half of its RSA key.
public struct FCMSimulatorServiceAccount: Sendable, Equatable {
    /// The JWT `iss` (`…@….iam.gserviceaccount.com` at Google).
    public var clientEmail: String
    /// The key id; an assertion whose header carries another `kid` is refused.
    public var privateKeyID: String
    /// The RSA public key (`PUBLIC KEY` PEM, or a `PRIVATE KEY` PEM whose
    /// public half is used).
    public var publicKeyPEM: String

    public init(clientEmail: String, privateKeyID: String, publicKeyPEM: String) {
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.publicKeyPEM = publicKeyPEM
    }
}
