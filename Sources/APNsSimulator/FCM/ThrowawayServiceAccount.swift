/// A service account made at run time, for tests and the no-credentials
/// demo: a fresh 2048-bit RSA key, the registration the simulator needs,
/// and the service-account JSON file a client loads.
///
/// Holds PEM text only, so it is `Sendable`. The private key is throwaway
/// but still a secret to the simulator: `description` never shows it.
public struct ThrowawayServiceAccount: Sendable, CustomStringConvertible {
    /// What to put in `FCMSimulatorConfiguration.serviceAccounts`.
    public let registration: FCMSimulatorServiceAccount
    /// The `project_id` written into the JSON.
    public let projectID: String
    /// The RSA private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public let privateKeyPEM: String

    /// Generates a key pair for `clientEmail` in `projectID`.
    public init(projectID: String, clientEmail: String? = nil, privateKeyID: String? = nil) throws(APNsSimulatorError) {
        let key = try OwnedKey.generateRSA(bits: 2048)
        let keyID = privateKeyID ?? Base64URL.encode((0..<20).map { _ in UInt8.random(in: 0...255) })
        let email = clientEmail ?? "pushgw-test@\(projectID).iam.gserviceaccount.com"
        registration = FCMSimulatorServiceAccount(clientEmail: email, privateKeyID: keyID,
                                                  publicKeyPEM: try key.publicKeyPEM())
        self.projectID = projectID
        privateKeyPEM = try key.privateKeyPEM()
    }

    /// The service-account JSON (Google's field set), with `token_uri`
    /// pointing at the simulator (`FCMSimulator.tokenURI`).
    public func json(tokenURI: String) -> String {
        JSONText.object([
            ("type", JSONText.quoted("service_account")),
            ("project_id", JSONText.quoted(projectID)),
            ("private_key_id", JSONText.quoted(registration.privateKeyID)),
            ("private_key", JSONText.quoted(privateKeyPEM)),
            ("client_email", JSONText.quoted(registration.clientEmail)),
            ("client_id", JSONText.quoted("100000000000000000001")),
            ("auth_uri", JSONText.quoted("https://accounts.google.com/o/oauth2/auth")),
            ("token_uri", JSONText.quoted(tokenURI)),
            ("auth_provider_x509_cert_url", JSONText.quoted("https://www.googleapis.com/oauth2/v1/certs")),
            ("universe_domain", JSONText.quoted("googleapis.com")),
        ])
    }

    public var description: String {
        "ThrowawayServiceAccount(\(registration.clientEmail), key \(registration.privateKeyID), private key redacted)"
    }
}
