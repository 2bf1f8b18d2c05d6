/// A successful token-endpoint answer: `{"access_token","expires_in","token_type"}`.
///
/// `description` never shows the token.
public struct AccessTokenGrant: Sendable, Equatable, CustomStringConvertible {
    /// The bearer token for `Authorization: Bearer …`.
    public var accessToken: String
    /// Seconds the token is valid for, counted from the grant request.
    public var expiresIn: Int64
    /// `Bearer` (compared case-insensitively when read).
    public var tokenType: String

    public init(accessToken: String, expiresIn: Int64, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
    }

    public var description: String { "AccessTokenGrant(\(tokenType), expires in \(expiresIn) s, token redacted)" }
}
