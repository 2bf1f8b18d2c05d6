/// An APNs provider authentication token: the ES256-signed JWT sent as
/// `authorization: bearer <jwt>` (Apple, "Establishing a token-based
/// connection to APNs"; RFC 7519/7515/7518 §3.4).
///
/// - header: `{"alg":"ES256","kid":"<keyID>"}`
/// - claims: `{"iss":"<teamID>","iat":<epoch seconds>}` — `iat` is a JSON number
/// - signature: the raw 64-byte R‖S, not DER
///
/// Each part is base64url without padding, joined with `.`. Minting is pure
/// apart from the signature's randomness: the issue time is an argument,
/// never read from a clock. Values are immutable and `Sendable`.
///
/// How long to reuse a token is not this type's concern; see ``ProviderTokenCache``.
public struct APNsProviderToken: Sendable, Hashable, CustomStringConvertible {
    /// The 10-character Key ID of the signing key (`kid`).
    public let keyID: String
    /// The 10-character Team ID (`iss`).
    public let teamID: String
    /// The issue time in seconds since the epoch (`iat`).
    public let issuedAt: Int64
    /// The compact JWT, `header.claims.signature`, ready for `bearer `.
    public let jwt: String

    /// Mints and signs a token.
    /// - Throws: ``APNsProviderTokenError`` for a malformed key or team ID,
    ///   ``ES256SigningKeyError`` if signing fails.
    public init(keyID: String, teamID: String, issuedAt: Int64, signingKey: ES256SigningKey) throws {
        try Self.validate(keyID: keyID, teamID: teamID)
        // Both IDs are [A-Z0-9]{10}, so they need no JSON escaping.
        let header = #"{"alg":"ES256","kid":""# + keyID + #""}"#
        let claims = #"{"iss":""# + teamID + #"","iat":"# + String(issuedAt) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try signingKey.sign(Array(signingInput.utf8))
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.jwt = signingInput + "." + Base64URL.encode(signature)
    }

    /// Throws unless both IDs are exactly 10 characters of `A`–`Z`, `0`–`9`,
    /// the form Apple issues them in.
    public static func validate(keyID: String, teamID: String) throws {
        guard isAppleIdentifier(keyID) else { throw APNsProviderTokenError.invalidKeyID(keyID) }
        guard isAppleIdentifier(teamID) else { throw APNsProviderTokenError.invalidTeamID(teamID) }
    }

    /// Hides the signature: tokens are credentials for up to an hour.
    public var description: String {
        "APNsProviderToken(kid: \(keyID), iss: \(teamID), iat: \(issuedAt))"
    }

    /// Whether `value` has the shape of an Apple key id or team id: 10
    /// characters A-Z and 0-9.
    public static func isAppleIdentifier(_ value: String) -> Bool {
        let bytes = value.utf8
        return bytes.count == 10 && bytes.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }
}

/// Why an ``APNsProviderToken`` could not be made from its identifiers.
/// A configuration problem: fix the settings, don't retry.
public enum APNsProviderTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Key ID is not 10 characters of `A`–`Z`, `0`–`9`.
    case invalidKeyID(String)
    /// The Team ID is not 10 characters of `A`–`Z`, `0`–`9`.
    case invalidTeamID(String)

    public var description: String {
        switch self {
        case .invalidKeyID(let value):
            return "APNs key ID must be 10 characters A-Z 0-9, got \(value.debugDescription)"
        case .invalidTeamID(let value):
            return "APNs team ID must be 10 characters A-Z 0-9, got \(value.debugDescription)"
        }
    }
}
