public import OpenSSLCrypto
import HTTP2Client

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
    /// - Throws: `invalidKeyID` / `invalidTeamID` for a malformed identifier,
    ///   `signingFailed` if signing fails.
    public init(keyID: String, teamID: String, issuedAt: Int64, signingKey: ES256SigningKey) throws(ProviderTokenError) {
        try Self.validate(keyID: keyID, teamID: teamID)
        // Both IDs are [A-Z0-9]{10}, so they need no JSON escaping.
        let header = #"{"alg":"ES256","kid":""# + keyID + #""}"#
        let claims = #"{"iss":""# + teamID + #"","iat":"# + String(issuedAt) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature: [UInt8]
        do {
            signature = try signingKey.sign(Array(signingInput.utf8))
        } catch {
            throw .signingFailed(error)
        }
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.jwt = signingInput + "." + Base64URL.encode(signature)
    }

    /// Throws unless both IDs are exactly 10 characters of `A`–`Z`, `0`–`9`,
    /// the form Apple issues them in.
    public static func validate(keyID: String, teamID: String) throws(ProviderTokenError) {
        guard isAppleIdentifier(keyID) else { throw .invalidKeyID(keyID) }
        guard isAppleIdentifier(teamID) else { throw .invalidTeamID(teamID) }
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

/// Why a provider token could not be made, or its cache configured. Every
/// case is a problem retrying will not fix: the settings (`invalidKeyID`,
/// `invalidTeamID`, `refreshAgeOutOfRange`) or the key (`signingFailed`).
public enum ProviderTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Key ID is not 10 characters of `A`–`Z`, `0`–`9`.
    case invalidKeyID(String)
    /// The Team ID is not 10 characters of `A`–`Z`, `0`–`9`.
    case invalidTeamID(String)
    /// The refresh age is outside ``ProviderTokenCache/allowedRefreshAges``.
    case refreshAgeOutOfRange(Duration)
    /// The key could not sign the token.
    case signingFailed(ES256SigningKeyError)

    public var description: String {
        switch self {
        case .invalidKeyID(let value):
            return "APNs key ID must be 10 characters A-Z 0-9, got \(value.debugDescription)"
        case .invalidTeamID(let value):
            return "APNs team ID must be 10 characters A-Z 0-9, got \(value.debugDescription)"
        case .refreshAgeOutOfRange(let age):
            return "provider token refresh age must be 20 to 50 minutes, got \(age)"
        case .signingFailed(let error):
            return "cannot sign the provider token: \(error)"
        }
    }
}
