import OpenSSLCrypto

/// One signed VAPID JWT (RFC 8292 §2): header `{"typ":"JWT","alg":"ES256"}`,
/// claims `{"aud":<origin>,"exp":<epoch seconds>,"sub":<contact>}`, signed
/// with ES256 in the raw R‖S form JWS uses, and the `Authorization` value
/// it makes with the key: `vapid t=<JWT>, k=<public key>` (§3).
struct VAPIDToken: Sendable {
    /// The header's base64url, the same for every token.
    static let encodedHeader = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))

    let expiresAt: Int64
    let authorization: String

    /// Signs a token. `origin` and `subject` are validated values (no
    /// character in them needs JSON escaping).
    init(origin: PushServiceOrigin, subject: String, expiresAt: Int64, key: VAPIDKey) throws(VAPIDError) {
        let claims = #"{"aud":""# + origin.serialized + #"","exp":"# + String(expiresAt) + #","sub":""# + subject + #""}"#
        let signingInput = Self.encodedHeader + "." + Base64URL.encode(Array(claims.utf8))
        let signature: [UInt8]
        do {
            signature = try key.signingKey.sign(Array(signingInput.utf8))
        } catch {
            throw .signingFailed(reason: error.description)
        }
        self.expiresAt = expiresAt
        authorization = "vapid t=" + signingInput + "." + Base64URL.encode(signature) + ", k=" + key.publicKeyBase64URL
    }

    /// Checks a contact URI: `mailto:` or `https:` followed by printable
    /// ASCII without white space, quotes or backslashes.
    static func validate(subject: String) throws(VAPIDError) {
        let lowered = subject.lowercased()
        guard lowered.hasPrefix("mailto:") || lowered.hasPrefix("https:") else {
            throw .invalidSubject(reason: "\"\(subject)\" is not a mailto: or https: URI")
        }
        let rest = subject.utf8.drop { $0 != UInt8(ascii: ":") }.dropFirst()
        guard !rest.isEmpty else { throw .invalidSubject(reason: "nothing after the scheme") }
        guard subject.utf8.count <= 1024 else { throw .invalidSubject(reason: "longer than 1024 bytes") }
        guard subject.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalidSubject(reason: "only printable ASCII without spaces, quotes or backslashes")
        }
    }
}
