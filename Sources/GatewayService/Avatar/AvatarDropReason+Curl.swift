import CCurl

extension AvatarDropReason {
    /// The one translation of a failed transfer's `CURLcode` into a drop
    /// reason (nil: libcurl gave no code, e.g. out of memory). `refusedAddress`
    /// says the open-socket callback refused an address, so a failure to
    /// connect is the policy's doing.
    init(curlCode code: CURLcode?, refusedAddress: Bool) {
        guard let code else {
            self = .fetchFailed
            return
        }
        switch code {
        case CURLE_COULDNT_CONNECT:
            self = refusedAddress ? .privateAddress : .connectFailed
        case CURLE_COULDNT_RESOLVE_HOST:
            self = .dnsFailed
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout
        case CURLE_FILESIZE_EXCEEDED:
            self = .tooLarge
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .schemeNotAllowed
        case CURLE_URL_MALFORMAT:
            self = .badURL
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            self = .tlsFailed
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            self = .transferFailed
        default:
            self = .fetchFailed
        }
    }
}
