/// Checks the VAPID authorization of a push request (RFC 8292) on one
/// connection:
///
/// - `Authorization: vapid t=<JWT>, k=<key>`: the scheme in any ASCII case,
///   then the `t` and `k` parameters once each, in either order, separated
///   by a comma and optional spaces, each a bare token (not quoted). `k`
///   is the application server's P-256 public key, uncompressed (65
///   bytes), in base64url without padding (RFC 7515 §2), as `t`'s parts are.
/// - The JWT: three canonical base64url parts; header `{"alg":"ES256"}`
///   with `typ`, when present, `"JWT"`; an ES256 signature that verifies
///   under `k`; claims with `aud` exactly the push resource's origin
///   (`https://127.0.0.1:PORT`), an integer `exp` in the future and at most
///   24 hours ahead (RFC 8292 §2), and `sub` a `mailto:` or `https:` URI
///   (optional in RFC 8292, required by Apple's service, so required here).
///
/// Every failure is 401 with a reason naming it, as Mozilla's autopush
/// answers (Apple answers 403 `BadJwtToken`; either tells the sender its
/// credentials are wrong).
///
/// The pre-RFC form of the Mozilla draft (`Authorization: WebPush <JWT>`
/// with the key in `Crypto-Key: p256ecdsa=…`) is refused, 401
/// `BadAuthorizationScheme`: RFC 8292 replaced it, Apple's and Google's
/// services take only `vapid`, and a gateway that sent it would fail there.
///
/// Thread-confined: one per connection. The last header verified is kept,
/// so a sender that reuses its token (RFC 8292 §2 asks it to) costs one
/// signature check per connection; its `exp` is still checked every time.
struct VAPIDVerifier {
    /// What a verified token proved.
    struct Claims: Equatable {
        /// The `k` parameter, decoded: the sender's public point.
        let publicKey: [UInt8]
        /// The `k` parameter as sent.
        let publicKeyText: String
        let subject: String
        let expiry: Int64
    }

    private let maxLifetime: Double
    private var verified: (authorization: String, claims: Claims)?

    init(maxLifetime: Double) {
        self.maxLifetime = maxLifetime
    }

    /// The claims of a valid authorization for `origin` at `now`, or the refusal.
    mutating func check(authorization: String?, origin: String, now: Double) -> Result<Claims, WebPushRefusal> {
        guard let authorization, !authorization.isEmpty else {
            return .failure(Self.refusal("MissingAuthorization", "No Authorization header: VAPID (RFC 8292) is required"))
        }
        if let verified, verified.authorization.sameBytes(as: authorization) {
            guard Double(verified.claims.expiry) > now else {
                return .failure(Self.refusal("ExpiredJWT", "The JWT's exp has passed"))
            }
            return .success(verified.claims)
        }
        let result = verify(authorization, origin: origin, now: now)
        if case .success(let claims) = result { verified = (authorization, claims) }
        return result
    }

    private func verify(_ authorization: String, origin: String, now: Double) -> Result<Claims, WebPushRefusal> {
        let parameters: (token: String, key: String)
        switch Self.parameters(of: authorization) {
        case .success(let parsed): parameters = parsed
        case .failure(let refusal): return .failure(refusal)
        }
        guard let point = Base64URL.decode(Substring(parameters.key)), let key = P256Point.publicKey(point: point) else {
            return .failure(Self.refusal("BadVAPIDKey", "k is not a base64url uncompressed P-256 public key"))
        }
        let parts = parameters.token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = SimulatorJSONParser.parse(headerBytes), header.isObject,
              let claims = SimulatorJSONParser.parse(claimBytes), claims.isObject else {
            return .failure(Self.refusal("BadJWT", "t is not a JWT of three base64url parts with JSON objects"))
        }
        guard header["alg"]?.stringValue?.sameBytes(as: "ES256") == true else {
            return .failure(Self.refusal("BadJWT", "The JWT header's alg is not ES256"))
        }
        if let type = header["typ"], type.stringValue?.sameBytes(as: "JWT") != true {
            return .failure(Self.refusal("BadJWT", "The JWT header's typ is not JWT"))
        }
        let signedPart = Array(parameters.token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard ES256Verifier.verify(signature: signature, message: signedPart, key: key) else {
            return .failure(Self.refusal("BadJWTSignature", "The JWT's signature does not verify under k"))
        }
        guard let audience = claims["aud"]?.stringValue, audience.sameBytes(as: origin) else {
            return .failure(Self.refusal("BadJWTAudience", "The JWT's aud is not the push resource's origin \(origin)"))
        }
        guard let expiry = claims["exp"]?.integerValue else {
            return .failure(Self.refusal("BadJWT", "The JWT has no integer exp"))
        }
        guard Double(expiry) > now else {
            return .failure(Self.refusal("ExpiredJWT", "The JWT's exp has passed"))
        }
        guard Double(expiry) <= now + maxLifetime else {
            return .failure(Self.refusal("JWTExpiryTooFar", "The JWT's exp is more than 24 hours ahead (RFC 8292 section 2)"))
        }
        guard let subject = claims["sub"]?.stringValue, Self.isContact(subject) else {
            return .failure(Self.refusal("BadJWTSubject", "The JWT's sub is not a mailto: or https: URI"))
        }
        return .success(Claims(publicKey: point, publicKeyText: parameters.key, subject: subject, expiry: expiry))
    }

    /// `t` and `k` of `vapid t=…, k=…`.
    static func parameters(of authorization: String) -> Result<(token: String, key: String), WebPushRefusal> {
        let scheme = authorization.prefix { $0 != " " }
        guard scheme.lowercased() == "vapid" else {
            if scheme.lowercased() == "webpush" {
                return .failure(refusal("BadAuthorizationScheme",
                                        "The WebPush scheme with Crypto-Key is the pre-RFC draft; RFC 8292 uses vapid t=..., k=..."))
            }
            return .failure(refusal("BadAuthorizationScheme", "The Authorization scheme is not vapid"))
        }
        var token: String?
        var key: String?
        for item in authorization.dropFirst(scheme.count).split(separator: ",", omittingEmptySubsequences: false) {
            let parameter = item.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            let text = String(parameter)
            guard let equals = text.firstIndex(of: "=") else {
                return .failure(refusal("BadAuthorizationHeader", "The vapid parameters are not name=value pairs"))
            }
            let name = text[..<equals].lowercased()
            let value = String(text[text.index(after: equals)...])
            switch name {
            case "t" where token == nil: token = value
            case "k" where key == nil: key = value
            default:
                return .failure(refusal("BadAuthorizationHeader", "The vapid parameters must be t and k, once each"))
            }
        }
        guard let token, let key, !token.isEmpty, !key.isEmpty else {
            return .failure(refusal("BadAuthorizationHeader", "The vapid scheme needs both t and k"))
        }
        return .success((token, key))
    }

    /// Whether `subject` is a contact URI RFC 8292 §2.1 allows.
    static func isContact(_ subject: String) -> Bool {
        for prefix in ["mailto:", "https://"] where subject.hasPrefix(prefix) && subject.count > prefix.count {
            return true
        }
        return false
    }

    private static func refusal(_ reason: String, _ message: String) -> WebPushRefusal {
        WebPushRefusal(status: 401, reason, message)
    }
}
