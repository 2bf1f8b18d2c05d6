internal import CCurl

/// A libcurl failure naming the call or option that failed: the one place
/// that turns a `CURLcode` into text and into a `Kind` callers can judge
/// (the avatar's drop reasons, the token exchange's retry rule).
package struct CurlFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in the terms a caller decides on.
    package enum Kind: Equatable, Sendable {
        /// No connection could be made.
        case couldNotConnect
        /// Every address DNS gave was refused by the request's `admitsAddress`.
        case addressRefused
        case couldNotResolveHost
        case timedOut
        /// The body (or its declared length) went past `maximumBodyBytes`.
        case bodyTooLarge
        /// The request's `bodyUse` refused the answer with this status.
        case statusRefused(Int)
        case unsupportedScheme
        case malformedURL
        case tooManyRedirects
        /// The proxy answered `CONNECT` with this status instead of 2xx:
        /// 407 (credentials) and 403 (its policy) are configuration, 5xx
        /// (it could not reach the target) may pass.
        case proxyRefused(Int)
        /// The TLS handshake or the peer's certificate failed.
        case tls
        /// The connection broke or the server sent something unreadable.
        case transfer
        /// Setting up the handle failed (an option refused, no memory).
        case setup
        /// Anything else libcurl reports.
        case other
    }

    package let kind: Kind
    /// The failing call, e.g. `curl_easy_perform` or `curl_easy_setopt(CURLOPT_CAINFO)`.
    package let call: String
    /// libcurl's message (with the error buffer's detail when it adds one).
    package let message: String
    /// Whether the request certainly never reached the server (setup failures,
    /// no connection made).
    package let beforeSending: Bool
    /// The last status received before the failure, 0 when none was.
    package let status: Int

    init(call: String, code: CURLcode, detail: String? = nil, kind: Kind? = nil, status: Int = 0, beforeSending: Bool) {
        self.call = call
        self.kind = kind ?? Self.kind(of: code, beforeSending: beforeSending)
        let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
        if let detail, !detail.isEmpty, detail != text {
            message = "\(text): \(detail)"
        } else {
            message = text
        }
        self.status = status
        self.beforeSending = beforeSending
    }

    init(call: String, message: String, kind: Kind, status: Int = 0, beforeSending: Bool) {
        self.call = call
        self.kind = kind
        self.message = message
        self.status = status
        self.beforeSending = beforeSending
    }

    package var description: String { "\(call) failed: \(message)" }

    private static func kind(of code: CURLcode, beforeSending: Bool) -> Kind {
        switch code {
        case CURLE_COULDNT_CONNECT:
            return .couldNotConnect
        case CURLE_COULDNT_RESOLVE_HOST:
            return .couldNotResolveHost
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_FILESIZE_EXCEEDED:
            return .bodyTooLarge
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .unsupportedScheme
        case CURLE_URL_MALFORMAT:
            return .malformedURL
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return .tls
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            return .transfer
        default:
            return beforeSending ? .setup : .other
        }
    }
}
