import CCurl
import CCurlShims

/// One libcurl easy handle, owned and cleaned up here, and its request header list.
///
/// Not thread-safe: created, used and released on the one worker thread that
/// runs the fetch. Options go through the typed shims in `CCurlShims`
/// (`curl_easy_setopt` is variadic); every setter reports failure as
/// `AvatarCurlSetupFailure` naming the option.
final class AvatarCurlHandle {
    private let handle: UnsafeMutableRawPointer
    private var headers: UnsafeMutablePointer<curl_slist>?

    init() throws(AvatarCurlSetupFailure) {
        guard let handle = curl_easy_init() else {
            throw AvatarCurlSetupFailure(call: "curl_easy_init", message: "returned NULL")
        }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headers)
    }

    func set(_ option: CURLoption, _ value: Int, _ name: String) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_long(handle, option, value), name)
    }

    func set(_ option: CURLoption, _ value: String, _ name: String) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_str(handle, option, value), name)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, _ name: String) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_ptr(handle, option, value), name)
    }

    func setLarge(_ option: CURLoption, _ value: Int, _ name: String) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_off_t(handle, option, curl_off_t(value)), name)
    }

    func setWriteFunction(
        _ callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int
    ) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, callback), "CURLOPT_WRITEFUNCTION")
    }

    func setOpenSocketFunction(
        _ callback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t
    ) throws(AvatarCurlSetupFailure) {
        try check(pgw_curl_setopt_opensocket_callback(handle, CURLOPT_OPENSOCKETFUNCTION, callback), "CURLOPT_OPENSOCKETFUNCTION")
    }

    /// Replaces the request headers (`CURLOPT_HTTPHEADER`); the list lives as long as the handle.
    func setHeaders(_ lines: [String]) throws(AvatarCurlSetupFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw AvatarCurlSetupFailure(call: "curl_slist_append", message: "returned NULL")
            }
            list = appended
        }
        try check(pgw_curl_setopt_ptr(handle, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
        curl_slist_free_all(headers)
        headers = list
    }

    /// Runs the transfer on this thread; blocks until it ends.
    func perform() -> CURLcode {
        curl_easy_perform(handle)
    }

    /// `CURLINFO_RESPONSE_CODE`: the last status received, 0 before any.
    var responseCode: Int {
        var code = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0
    }

    /// `CURLINFO_REDIRECT_URL`: the absolute target of a 3xx `Location`, if any.
    var redirectURL: String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pgw_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func check(_ code: CURLcode, _ name: String) throws(AvatarCurlSetupFailure) {
        guard code != CURLE_OK else { return }
        throw AvatarCurlSetupFailure(call: name, message: String(cString: curl_easy_strerror(code)))
    }
}
