package import PayloadBuilder

/// Base64url without padding (RFC 4648 §5, as JWS requires): the encoding
/// of JWT parts, for APNs provider tokens and the FCM OAuth assertion, and
/// of Web Push's keys (a subscription's `p256dh` and `auth`, VAPID keys).
/// The codec itself is the pure core's `WebSafeBase64`, the one the event
/// reader decodes subscription keys with; this is its interface in the
/// terms of the keys' owners (text in, bytes or nil out).
package enum Base64URL {
    package static func encode(_ bytes: [UInt8]) -> String {
        WebSafeBase64.encode(bytes)
    }

    /// Decodes canonical base64url without padding; nil for anything else
    /// (a symbol outside the alphabet, a length no encoding has, non-zero
    /// leftover bits). With `allowingPadding`, `=` padding to a multiple of
    /// four is read past as well: some browsers' subscription JSON and some
    /// tools pad.
    package static func decode(_ text: String, allowingPadding: Bool = false) -> [UInt8]? {
        let symbols = Array(text.utf8)
        if !allowingPadding, symbols.last == UInt8(ascii: "=") { return nil }
        guard case let .success(bytes) = WebSafeBase64.decode(symbols.span) else { return nil }
        return bytes
    }
}
