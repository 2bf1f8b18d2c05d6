/// The settings one `CurlEasy` keeps for every transfer it performs: which
/// schemes may be spoken, whom to trust, what to send with every request and
/// how much of an answer to take.
///
/// Fixed for every handle, whatever the options: no signals, redirects never
/// followed by libcurl (a caller that follows them checks each hop itself),
/// peer and host verification on, HTTP/0.9 refused, and libcurl's proxy
/// environment variables never read (each `CurlRequest` says its proxy).
package struct CurlOptions: Sendable {
    /// The schemes the request may use, e.g. `["https"]`
    /// (`CURLOPT_PROTOCOLS_STR`, and the same for redirect targets).
    package var schemes: [String]
    /// A PEM file of CA certificates to trust instead of the system's.
    package var caFile: String?
    package var userAgent: String
    /// Header lines sent with every request, `Name: value`.
    package var headers: [String]
    /// A larger response body fails the transfer with `.bodyTooLarge`; a
    /// declared `Content-Length` above it fails before the body arrives.
    package var maximumBodyBytes: Int
    /// Response header fields to keep (lowercase names; the last value wins).
    package var keptHeaders: Set<String>
    /// Offer HTTP/2 by ALPN on TLS connections (`CURL_HTTP_VERSION_2TLS`).
    package var offersHTTP2: Bool

    package init(schemes: [String], caFile: String? = nil, userAgent: String = "pushgw", headers: [String] = [],
                 maximumBodyBytes: Int, keptHeaders: Set<String> = [], offersHTTP2: Bool = false) {
        self.schemes = schemes
        self.caFile = caFile
        self.userAgent = userAgent
        self.headers = headers
        self.maximumBodyBytes = maximumBodyBytes
        self.keptHeaders = keptHeaders
        self.offersHTTP2 = offersHTTP2
    }
}
