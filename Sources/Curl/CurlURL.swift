internal import CCurl

/// A URL as libcurl's own parser reads it, owning the `CURLU` handle.
///
/// Given to a transfer as `CurlRequest.Target.parsed`, the same handle is
/// what libcurl connects to (`CURLOPT_CURLU`), so a host a caller checks is
/// exactly the host used: no second parser to disagree with
/// (`http://0x7f.1/` is already `127.0.0.1` here). Not thread-safe; lives on
/// the thread that parses and fetches.
package final class CurlURL {
    let handle: OpaquePointer
    /// The scheme, lowercased by libcurl.
    package let scheme: String
    /// The host as libcurl normalised it: IPv4 in dotted-quad form, IPv6 in
    /// brackets without the zone, names as written; empty when there is none
    /// (`file:///…`).
    package let host: String
    /// Whether a user name or password is present.
    package let hasCredentials: Bool
    /// The port, the scheme's default when the URL has none (0 when unknown).
    package let port: Int

    /// Parses `text` with any scheme; nil when libcurl refuses it.
    package init?(_ text: String) {
        // The URL API may be the first libcurl call of the process.
        guard (try? CurlEasy.initializeGlobally()) != nil, let handle = curl_url() else { return nil }
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
        self.port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) } ?? 0
    }

    deinit {
        curl_url_cleanup(handle)
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
