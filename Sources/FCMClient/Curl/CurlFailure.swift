internal import CCurl

/// A libcurl failure naming the call or option that failed: the one place
/// that turns a `CURLcode` into text.
struct CurlFailure: Error, Sendable, CustomStringConvertible {
    /// The failing call, e.g. `curl_easy_perform` or `curl_easy_setopt(CURLOPT_CAINFO)`.
    let call: String
    /// libcurl's message (the error buffer when it holds one, else `curl_easy_strerror`).
    let message: String
    /// Whether the request certainly never reached the server (setup failures).
    let beforeSending: Bool

    init(call: String, code: CURLcode, detail: String? = nil, beforeSending: Bool) {
        self.call = call
        let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
        if let detail, !detail.isEmpty, detail != text {
            message = "\(text): \(detail)"
        } else {
            message = text
        }
        self.beforeSending = beforeSending
    }

    init(call: String, message: String, beforeSending: Bool) {
        self.call = call
        self.message = message
        self.beforeSending = beforeSending
    }

    var description: String { "\(call) failed: \(message)" }
}
