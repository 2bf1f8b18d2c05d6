/// Checks the `authorization: bearer <JWT>` of each request on one
/// connection, with the per-connection memory Apple has (PROTOCOLS.md A4):
/// the token in use, when it was adopted, and the key the connection is
/// bound to.
///
/// - Missing header or empty token → 403 `MissingProviderToken`.
/// - Not `bearer`, not three base64url parts, header not
///   `{"alg":"ES256","kid":<known>}`, claims without `iss` == team ID or an
///   integer `iat`, `iat` further ahead than the allowed skew, or a signature
///   that does not verify → 403 `InvalidProviderToken`.
/// - A valid token whose `kid` differs from the one the connection was bound
///   to by its first token → 403 `UnrelatedKeyIdInToken`.
/// - `iat` older than the maximum age (1 hour) → 403 `ExpiredProviderToken`,
///   also for the token already in use.
/// - A valid token with a different `iat` less than the minimum interval (20 minutes)
///   after the connection adopted its current one → 429
///   `TooManyProviderTokenUpdates`; the current token stays in use.
///
/// A token with the same `kid` and `iat` as the one in use but another
/// (randomized) ECDSA signature is the same token, not an update.
///
/// Thread-confined: one instance per connection, used by its thread only.
/// The token in use is verified once, then compared byte for byte; `kid`,
/// `iss` and `alg` are compared as UTF-8 bytes too (`UTF8Key`).
struct ProviderTokenVerifier {
    private let teamID: String
    private let keyPEMs: [UTF8Key: String]
    private let maxAge: Double
    private let minimumRefreshInterval: Double
    private let allowedClockSkew: Double
    private var parsedKeys: [UTF8Key: OwnedKey] = [:]
    /// The simulator's parsed keys; without it, each key is parsed here on first use.
    private let keyring: ProviderKeyring?
    private var current: (token: String, keyID: String, issuedAt: Int64, adoptedAt: Double)?
    private var boundKeyID: String?

    init(configuration: APNsSimulatorConfiguration, keyring: ProviderKeyring? = nil) {
        self.keyring = keyring
        teamID = configuration.teamID
        keyPEMs = Dictionary(configuration.keys.map { (UTF8Key($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        maxAge = configuration.providerTokenMaxAge
        minimumRefreshInterval = configuration.providerTokenMinimumRefreshInterval
        allowedClockSkew = configuration.providerTokenAllowedClockSkew
    }

    /// Whether a valid token has been adopted on this connection.
    var hasCurrentToken: Bool { current != nil }

    /// `nil` when the request may proceed, else the answer to give.
    mutating func check(authorization: String?, now: Double) -> APNsSimulatorResponse? {
        guard let authorization, !authorization.isEmpty else { return Self.missing }
        guard let space = authorization.utf8.firstIndex(of: UInt8(ascii: " ")),
              authorization[..<space].lowercased() == "bearer" else { return Self.invalid }
        let token = String(authorization[authorization.index(after: space)...])
        guard !token.isEmpty else { return Self.missing }

        if let current, current.token.sameBytes(as: token) {
            return now - Double(current.issuedAt) > maxAge ? Self.expired : nil
        }
        guard let claims = verifiedClaims(of: token, now: now) else { return Self.invalid }
        if let boundKeyID, !boundKeyID.sameBytes(as: claims.keyID) { return Self.unrelatedKey }
        if now - Double(claims.issuedAt) > maxAge { return Self.expired }
        if let current, current.keyID.sameBytes(as: claims.keyID), current.issuedAt == claims.issuedAt {
            // The same claims signed again (ECDSA signatures are randomized):
            // not a new token, so no refresh is counted.
            self.current?.token = token
            return nil
        }
        if let current, now - current.adoptedAt < minimumRefreshInterval { return Self.tooManyUpdates }
        current = (token, claims.keyID, claims.issuedAt, now)
        boundKeyID = claims.keyID
        return nil
    }

    /// `check(authorization:now:)` on the header's bytes: the token in use,
    /// sent again as `bearer <token>` (the scheme in any ASCII case, as
    /// `lowercased()` compares it), is recognized without a String; anything
    /// else is decoded and checked as a String.
    mutating func check(authorizationBytes bytes: UnsafeBufferPointer<UInt8>?, now: Double) -> APNsSimulatorResponse? {
        if let bytes, var token = current?.token, let issuedAt = current?.issuedAt,
           token.withUTF8({ Self.isBearer(bytes, token: $0) }) {
            return now - Double(issuedAt) > maxAge ? Self.expired : nil
        }
        return check(authorization: bytes.map { String(decoding: $0, as: UTF8.self) }, now: now)
    }

    /// Whether `bytes` is `bearer` (any ASCII case), one space, then exactly `token`.
    private static func isBearer(_ bytes: UnsafeBufferPointer<UInt8>, token: UnsafeBufferPointer<UInt8>) -> Bool {
        let scheme: StaticString = "bearer "
        let count = scheme.utf8CodeUnitCount
        guard !token.isEmpty, bytes.count == count + token.count else { return false }
        for offset in 0..<count - 1 where bytes[offset] | 0x20 != scheme.utf8Start[offset] { return false }
        return bytes[count - 1] == UInt8(ascii: " ") && TextBytes.equal(UnsafeBufferPointer(rebasing: bytes[count...]), token)
    }

    /// The `kid` and `iat` of a well-formed, correctly signed token for this team.
    private mutating func verifiedClaims(of token: String, now: Double) -> (keyID: String, issuedAt: Int64)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]),
              let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = SimulatorJSONParser.parse(headerBytes),
              let claims = SimulatorJSONParser.parse(claimBytes),
              header["alg"]?.stringValue?.sameBytes(as: "ES256") == true,
              let keyID = header["kid"]?.stringValue,
              claims["iss"]?.stringValue?.sameBytes(as: teamID) == true,
              let issuedAt = claims["iat"]?.integerValue,
              Double(issuedAt) <= now + allowedClockSkew,
              let key = key(for: keyID) else { return nil }
        let signedPart = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard ES256Verifier.verify(signature: signature, message: signedPart, key: key) else { return nil }
        return (keyID, issuedAt)
    }

    /// The registered key for `keyID`: the keyring's, or parsed on first use.
    private mutating func key(for keyID: String) -> OwnedKey? {
        if let keyring { return keyring.key(for: keyID) }
        if let key = parsedKeys[UTF8Key(keyID)] { return key }
        guard let pem = keyPEMs[UTF8Key(keyID)], let key = try? OwnedKey.publicKey(pem: pem), key.isP256 else { return nil }
        parsedKeys[UTF8Key(keyID)] = key
        return key
    }

    private static let missing = APNsSimulatorResponse(status: 403, reason: "MissingProviderToken")
    private static let invalid = APNsSimulatorResponse(status: 403, reason: "InvalidProviderToken")
    private static let expired = APNsSimulatorResponse(status: 403, reason: "ExpiredProviderToken")
    private static let unrelatedKey = APNsSimulatorResponse(status: 403, reason: "UnrelatedKeyIdInToken")
    private static let tooManyUpdates = APNsSimulatorResponse(status: 429, reason: "TooManyProviderTokenUpdates")
}
