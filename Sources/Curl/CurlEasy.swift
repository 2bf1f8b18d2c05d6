package import CCurl
internal import CCurlShims

/// Owns one libcurl easy handle (with its request header list and error
/// buffer) and frees them in `deinit`: the one Swift wrapper of libcurl's
/// easy interface, shared by the OAuth token exchange (FCMClient) and the
/// avatar download (GatewayService).
///
/// Options go through the typed setters (`curl_easy_setopt` is variadic, so
/// each calls a non-variadic shim from `CCurlShims`); every failure is a
/// `CurlFailure` naming the option or call.
///
/// Thread-confined: created, configured, performed and released on one
/// thread. The easy interface blocks, so that thread is never one of
/// Swift's cooperative pool.
package final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_ERRORBUFFER: libcurl writes a detailed message here.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// `curl_global_init`, run once per process before the first handle
    /// (never cleaned up: handles may exist until the process ends). An
    /// immutable, lazily initialized constant: Swift runs the initializer
    /// exactly once, thread-safely.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Runs `curl_global_init` if nothing has yet: for code that calls
    /// libcurl functions other than through a handle (the URL API) first.
    package static func initializeGlobally() throws(CurlFailure) {
        let initialized = globalInit
        guard initialized == CURLE_OK else {
            throw CurlFailure(call: "curl_global_init", code: initialized, beforeSending: true)
        }
    }

    /// A fresh handle, with its error buffer attached.
    package init() throws(CurlFailure) {
        try Self.initializeGlobally()
        guard let handle = curl_easy_init() else {
            throw CurlFailure(call: "curl_easy_init", message: "out of memory", beforeSending: true)
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Set first, so that every later failure can be described.
        _ = pgw_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// A numeric or boolean option (`long`).
    package func set(_ option: CURLoption, _ value: Int, name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_long(handle, option, value), name)
    }

    /// A string option (libcurl copies it).
    package func set(_ option: CURLoption, _ value: String, name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_str(handle, option, value), name)
    }

    /// A `curl_off_t` option (the `*_LARGE` ones).
    package func set(_ option: CURLoption, large value: Int, name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_off_t(handle, option, curl_off_t(value)), name)
    }

    /// A pointer option (callback user data, a `CURLU` handle), or nil to clear it.
    package func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?, name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_ptr(handle, option, value), name)
    }

    /// A write or header callback (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
    package func set(
        _ option: CURLoption,
        callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int,
        name: String
    ) throws(CurlFailure) {
        try check(pgw_curl_setopt_write_callback(handle, option, callback), name)
    }

    /// The `CURLOPT_OPENSOCKETFUNCTION` callback, which runs after DNS for
    /// every address libcurl is about to connect to.
    package func setOpenSocketFunction(
        _ callback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t
    ) throws(CurlFailure) {
        try check(pgw_curl_setopt_opensocket_callback(handle, CURLOPT_OPENSOCKETFUNCTION, callback), "CURLOPT_OPENSOCKETFUNCTION")
    }

    /// The request body: its size first, then a copy of the bytes
    /// (CURLOPT_COPYPOSTFIELDS, because CURLOPT_POSTFIELDS is not copied).
    package func setBody(_ body: [UInt8]) throws(CurlFailure) {
        try set(CURLOPT_POSTFIELDSIZE_LARGE, large: body.count, name: "CURLOPT_POSTFIELDSIZE_LARGE")
        let code = body.withUnsafeBufferPointer { buffer in
            pgw_curl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
        }
        try check(code, "CURLOPT_COPYPOSTFIELDS")
    }

    /// Replaces the request header lines (`Name: value`); the list lives as long as the handle.
    package func setHeaders(_ lines: [String]) throws(CurlFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw CurlFailure(call: "curl_slist_append", message: "out of memory", beforeSending: true)
            }
            list = appended
        }
        do {
            try check(pgw_curl_setopt_ptr(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)), "CURLOPT_HTTPHEADER")
        } catch {
            if let list { curl_slist_free_all(list) }
            throw error
        }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
    }

    /// Runs the transfer on this thread and blocks until it ends. A failure
    /// carries its `CURLcode`; `beforeSending` is true only when the request
    /// certainly never reached a server (no connection was made).
    package func perform() throws(CurlFailure) {
        errorBuffer[0] = 0
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            throw CurlFailure(call: "curl_easy_perform", code: code, detail: String(cString: errorBuffer),
                              beforeSending: code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        }
    }

    /// `CURLINFO_RESPONSE_CODE`: the last status received, 0 before any.
    package var responseCode: Int {
        var code = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0
    }

    /// `CURLINFO_HTTP_VERSION` after `perform`: `CURL_HTTP_VERSION_2_0` for HTTP/2.
    package var httpVersion: Int {
        var version = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version) == CURLE_OK ? version : 0
    }

    /// `CURLINFO_REDIRECT_URL`: the absolute target of a 3xx `Location`, if any.
    package var redirectURL: String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pgw_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// A libcurl millisecond timeout for `duration`: rounded up, at least 1
    /// (0 would mean no timeout at all).
    package static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int((duration / .milliseconds(1)).rounded(.up)))
    }

    private func check(_ code: CURLcode, _ option: String) throws(CurlFailure) {
        guard code != CURLE_OK else { return }
        throw CurlFailure(call: "curl_easy_setopt(\(option))", code: code, detail: String(cString: errorBuffer),
                          beforeSending: true)
    }
}
