/// A browser push subscription's keys (RFC 8291 §3.2), as
/// `PushSubscription.toJSON().keys` gives them: decoded and checked, so
/// the transport that encrypts to them receives usable bytes.
///
/// The decoder checks the shape only: whether `p256dh` is a point on P-256
/// takes elliptic-curve arithmetic, which the encrypting transport does
/// when it derives the shared secret.
public struct WebPushKeys: Sendable, Equatable {
    /// The user agent's public key: an uncompressed P-256 point (`0x04`, X, Y).
    public var p256dh: [UInt8]
    /// The authentication secret.
    public var auth: [UInt8]

    /// Bytes of an uncompressed P-256 point.
    public static let p256dhBytes = 65
    /// Bytes of the authentication secret (RFC 8291 §3.2).
    public static let authBytes = 16
    /// The longest key text read: room for either key with padding, so a
    /// key far too long is refused before it is decoded.
    static let maximumTextLength = 128

    public init(p256dh: [UInt8], auth: [UInt8]) {
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The `p256dh` key decoded from its base64url text, or why it cannot be.
    static func decodedP256dh(_ text: Span<UInt8>) -> Result<[UInt8], KeyProblem> {
        switch WebSafeBase64.decode(text) {
        case let .failure(problem): return .failure(KeyProblem(describe(problem)))
        case let .success(bytes):
            guard bytes.count == p256dhBytes else {
                return .failure(KeyProblem("must encode an uncompressed P-256 public key of \(p256dhBytes) bytes; this one has \(bytes.count)"))
            }
            guard bytes[0] == 0x04 else {
                return .failure(KeyProblem("must encode an uncompressed P-256 public key (first byte 0x04)"))
            }
            return .success(bytes)
        }
    }

    /// The `auth` secret decoded from its base64url text, or why it cannot be.
    static func decodedAuth(_ text: Span<UInt8>) -> Result<[UInt8], KeyProblem> {
        switch WebSafeBase64.decode(text) {
        case let .failure(problem): return .failure(KeyProblem(describe(problem)))
        case let .success(bytes):
            guard bytes.count == authBytes else {
                return .failure(KeyProblem("must encode a \(authBytes)-byte authentication secret; this one has \(bytes.count) bytes"))
            }
            return .success(bytes)
        }
    }

    /// Why a key's text is not a usable key, in words for the caller.
    struct KeyProblem: Error {
        let message: String

        init(_ message: String) {
            self.message = message
        }
    }

    private static func describe(_ problem: WebSafeBase64.Problem) -> String {
        switch problem {
        case .notInAlphabet: "must be base64url (A-Z, a-z, 0-9, - and _; no + or /), as the browser gives it"
        case .badLength: "is not whole base64url: its length leaves a partial byte or misplaced = padding"
        case .nonCanonical: "is not canonical base64url: the last character carries bits beyond the key"
        }
    }
}

/// The rules of a `webpush` recipient's endpoint: the push service URL the
/// browser's subscription gave.
public enum WebPushEndpoint {
    /// The longest endpoint accepted, in bytes (an endpoint is ASCII;
    /// browsers' push services give endpoints of 150 to 500 characters).
    public static let maximumLength = 2048

    /// A checked endpoint split into its origin (`https://host[:port]`, as
    /// written) and the request target (its path and query; `/` when it
    /// has none), what a request to it sends as `:path`.
    public static func originAndPath(_ endpoint: String) -> (origin: String, path: String) {
        let bytes = endpoint.utf8
        let afterScheme = bytes.index(bytes.startIndex, offsetBy: min(8, bytes.count))
        guard let slash = bytes[afterScheme...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return (endpoint, "/")
        }
        let origin = String(endpoint[..<slash])
        var path = String(endpoint[slash...])
        if path.hasPrefix("?") { path = "/" + path }
        return (origin, path)
    }

    /// Why `endpoint` is not a usable endpoint, or nil.
    public static func problem(with endpoint: String) -> String? {
        problem(utf8: endpoint.utf8.span)
    }

    /// `problem(with:)` for the endpoint whose UTF-8 is `url`.
    static func problem(utf8 url: Span<UInt8>) -> String? {
        guard url.count <= maximumLength else {
            return "an endpoint has at most \(maximumLength) characters; this one has \(url.count)"
        }
        let kinds = PrintableASCII.classify(url)
        guard !kinds.nonASCII, !kinds.spaceOrControl else {
            return "an endpoint holds printable ASCII only, without spaces (a URL as the browser's subscription gives it)"
        }
        guard HTTPURL.schemeLength(url) == 8 else {
            return "must be an https:// URL: push services are reached over TLS only"
        }
        // The authority: up to the first `/`, `?` or `#`.
        var end = 8
        while end < url.count, url[end] != UInt8(ascii: "/"), url[end] != UInt8(ascii: "?"), url[end] != UInt8(ascii: "#") {
            if url[end] == UInt8(ascii: "@") {
                return "must not carry user information (user@host): a push service's endpoint has none"
            }
            end += 1
        }
        guard end > 8 else { return "must name a host after https://" }
        for offset in end..<url.count where url[offset] == UInt8(ascii: "#") {
            return "must not carry a fragment (#…): it is never sent to the push service"
        }
        return nil
    }
}
