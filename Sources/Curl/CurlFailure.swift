package import CCurl

/// A libcurl failure naming the call or option that failed: the one place
/// that turns a `CURLcode` into text. Callers that judge a transfer (the
/// avatar's drop reasons) read `code`.
package struct CurlFailure: Error, Sendable, CustomStringConvertible {
    /// The failing call, e.g. `curl_easy_perform` or `curl_easy_setopt(CURLOPT_CAINFO)`.
    package let call: String
    /// libcurl's code, when libcurl gave one (not for an allocation failure).
    package let code: CURLcode?
    /// libcurl's message (with the error buffer's detail when it adds one).
    package let message: String
    /// Whether the request certainly never reached the server (setup failures).
    package let beforeSending: Bool

    package init(call: String, code: CURLcode, detail: String? = nil, beforeSending: Bool) {
        self.call = call
        self.code = code
        let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
        if let detail, !detail.isEmpty, detail != text {
            message = "\(text): \(detail)"
        } else {
            message = text
        }
        self.beforeSending = beforeSending
    }

    package init(call: String, message: String, beforeSending: Bool) {
        self.call = call
        self.code = nil
        self.message = message
        self.beforeSending = beforeSending
    }

    package var description: String { "\(call) failed: \(message)" }
}
