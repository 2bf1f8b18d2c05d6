/// Google's token-endpoint checks of a JWT-bearer grant (PROTOCOLS.md B5),
/// first failure wins, each answered 400 with `{"error","error_description"}`:
///
/// 1. A form body with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
///    (else `unsupported_grant_type`) and an `assertion` (else `invalid_request`).
/// 2. Three base64url parts; header `alg` `RS256` (else `invalid_grant`
///    "Invalid JWT Signature.").
/// 3. `iss` a registered service account (else `invalid_grant` "Invalid
///    grant: account not found"); a header `kid`, when sent, must be that
///    account's `private_key_id`, and the RS256 signature must verify under
///    its key (else "Invalid JWT Signature.").
/// 4. `aud` the token URI (else `invalid_grant` naming the expected value).
/// 5. Integer `iat` and `exp`, `exp > iat`, `exp - iat <= 3600`, `exp` not
///    in the past (an expired assertion is never exchanged), and `iat` no
///    further in the future than the allowed skew (60 s by default) (else
///    `invalid_grant` "Invalid JWT: Token must be a short-lived token (60
///    minutes) and in a reasonable timeframe…").
/// 6. `scope` (space-separated) including `…/auth/firebase.messaging` or
///    `…/auth/cloud-platform` (else `invalid_scope`).
///
/// Thread-confined: one instance per connection; parsed keys are cached.
struct OAuthGrantVerifier {
    /// A refusal: the OAuth `error` code and Google's description.
    struct Refusal: Error {
        let error: String
        let description: String
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let acceptedScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]
    static let maximumLifetime: Int64 = 3600

    /// By `client_email`, compared as bytes (`UTF8Key`).
    private let accounts: [UTF8Key: FCMSimulatorServiceAccount]
    private let allowedClockSkew: Double
    private var parsedKeys: [String: OwnedKey] = [:]

    init(configuration: FCMSimulatorConfiguration) {
        var accounts: [UTF8Key: FCMSimulatorServiceAccount] = [:]
        for account in configuration.serviceAccounts { accounts[UTF8Key(account.clientEmail)] = account }
        self.accounts = accounts
        allowedClockSkew = configuration.allowedClockSkew
    }

    /// The `client_email` the grant is for, when every check passes.
    mutating func verify(form body: [UInt8], tokenURI: String, now: Double) -> Result<String, Refusal> {
        guard let form = FormURLEncoded.parse(body) else {
            return .failure(Refusal(error: "invalid_request", description: "Malformed form body."))
        }
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return .failure(Refusal(error: "unsupported_grant_type", description: "Invalid grant_type: "))
        }
        guard grantType == Self.grantType else {
            return .failure(Refusal(error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType)"))
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .failure(Refusal(error: "invalid_request", description: "Missing required parameter: assertion"))
        }
        return verify(assertion: assertion, tokenURI: tokenURI, now: now)
    }

    private mutating func verify(assertion: String, tokenURI: String, now: Double) -> Result<String, Refusal> {
        let badSignature = Refusal(error: "invalid_grant", description: "Invalid JWT Signature.")
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = SimulatorJSONParser.parse(headerBytes), header.isObject,
              let claims = SimulatorJSONParser.parse(claimBytes), claims.isObject else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid JWT: malformed assertion."))
        }
        guard header["alg"]?.stringValue?.sameBytes(as: "RS256") == true else { return .failure(badSignature) }
        guard let issuer = claims["iss"]?.stringValue, let account = accounts[UTF8Key(issuer)] else {
            return .failure(Refusal(error: "invalid_grant", description: "Invalid grant: account not found"))
        }
        if let keyID = header["kid"] {
            guard keyID.stringValue?.sameBytes(as: account.privateKeyID) == true else { return .failure(badSignature) }
        }
        guard let key = key(for: account) else { return .failure(badSignature) }
        let signedPart = Array(assertion.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard RS256Verifier.verify(signature: signature, message: signedPart, key: key) else {
            return .failure(badSignature)
        }
        guard claims["aud"]?.stringValue?.sameBytes(as: tokenURI) == true else {
            return .failure(Refusal(error: "invalid_grant",
                                    description: "Invalid JWT: Failed audience check. The right audience is \(tokenURI)"))
        }
        guard let issuedAt = claims["iat"]?.integerValue, let expiry = claims["exp"]?.integerValue,
              expiry > issuedAt, expiry - issuedAt <= Self.maximumLifetime,
              Double(issuedAt) <= now + allowedClockSkew, Double(expiry) >= now else {
            return .failure(Refusal(error: "invalid_grant", description:
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."))
        }
        let scopes = Set((claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
        guard !scopes.isDisjoint(with: Self.acceptedScopes) else {
            return .failure(Refusal(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided."))
        }
        return .success(account.clientEmail)
    }

    /// The account's RSA key, parsed on first use.
    private mutating func key(for account: FCMSimulatorServiceAccount) -> OwnedKey? {
        if let key = parsedKeys[account.clientEmail] { return key }
        guard let key = try? OwnedKey.publicKey(pem: account.publicKeyPEM), key.isRSA else { return nil }
        parsedKeys[account.clientEmail] = key
        return key
    }
}
