import CCurl

/// A URL as libcurl's own parser reads it, owning the `CURLU` handle.
///
/// The same handle is given to the transfer (`CURLOPT_CURLU`), so the host
/// the policy checks is exactly the host libcurl connects to: no second
/// parser to disagree with (`http://0x7f.1/` is already `127.0.0.1` here).
/// Not thread-safe; lives on the thread that fetches.
final class AvatarURL {
    /// Longer URLs are refused as `bad_url`.
    static let maxLength = 2048

    private let handle: OpaquePointer
    /// The scheme, lowercased by libcurl.
    let scheme: String
    /// The host as libcurl normalised it: IPv4 in dotted-quad form, IPv6 in
    /// brackets without the zone, names as written; empty when there is none
    /// (`file:///…`).
    let host: String
    /// Whether a user name or password is present.
    let hasCredentials: Bool

    /// Parses `text`; `nil` when libcurl refuses it, it is too long, or it contains a control character or a space (which C
    /// would truncate or libcurl might read differently from the device).
    init?(_ text: String) {
        guard text.utf8.count <= Self.maxLength,
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let handle = curl_url()
        else { return nil }
        guard curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME)
        else {
            curl_url_cleanup(handle)
            return nil
        }
        self.handle = handle
        self.scheme = scheme
        self.host = Self.part(handle, CURLUPART_HOST) ?? ""
        self.hasCredentials = Self.part(handle, CURLUPART_USER) != nil || Self.part(handle, CURLUPART_PASSWORD) != nil
    }

    deinit {
        curl_url_cleanup(handle)
    }

    /// The `CURLU *` for `CURLOPT_CURLU`. The caller keeps `self` alive for
    /// as long as libcurl may read it (the perform) and unsets it afterwards.
    var rawHandle: OpaquePointer { handle }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
