internal import CCurl
internal import CCurlShims

/// Owns one libcurl easy handle and frees it (and its header list and
/// error buffer) in `deinit`.
///
/// Thread-confined: created, configured, performed and released on one
/// thread, inside one `HTTPSPost.perform` call. libcurl's easy interface is
/// blocking, so that thread is never one of Swift's cooperative pool.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_ERRORBUFFER: libcurl writes a detailed message here.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// `curl_global_init`, run once per process before the first handle.
    /// An immutable, lazily initialized constant: Swift runs the
    /// initializer exactly once, thread-safely.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init() throws(CurlFailure) {
        let initialized = Self.globalInit
        guard initialized == CURLE_OK else {
            throw CurlFailure(call: "curl_global_init", code: initialized, beforeSending: true)
        }
        guard let handle = curl_easy_init() else {
            throw CurlFailure(call: "curl_easy_init", message: "out of memory", beforeSending: true)
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Must be set first so every later failure can be described.
        _ = pgw_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// A numeric or boolean option.
    func set(_ option: CURLoption, _ name: String, _ value: Int) throws(CurlFailure) {
        try check(pgw_curl_setopt_long(handle, option, value), name)
    }

    /// A string option (libcurl copies it).
    func set(_ option: CURLoption, _ name: String, _ value: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_str(handle, option, value), name)
    }

    /// A pointer option (callback user data).
    func set(_ option: CURLoption, _ name: String, pointer: UnsafeMutableRawPointer?) throws(CurlFailure) {
        try check(pgw_curl_setopt_ptr(handle, option, pointer), name)
    }

    /// A write or header callback.
    func set(_ option: CURLoption, _ name: String,
             callback: @escaping @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int) throws(CurlFailure) {
        try check(pgw_curl_setopt_write_callback(handle, option, callback), name)
    }

    /// The request body: its size first, then a copy of the bytes
    /// (CURLOPT_COPYPOSTFIELDS, because CURLOPT_POSTFIELDS is not copied).
    func setBody(_ body: [UInt8]) throws(CurlFailure) {
        try check(pgw_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "CURLOPT_POSTFIELDSIZE_LARGE")
        let code = body.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                pgw_curl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: chars.baseAddress))
            }
        }
        try check(code, "CURLOPT_COPYPOSTFIELDS")
    }

    /// Request header lines (`Name: value`), kept until the handle is freed.
    func setHeaders(_ lines: [String]) throws(CurlFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw CurlFailure(call: "curl_slist_append", message: "out of memory", beforeSending: true)
            }
            list = appended
        }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
        try check(pgw_curl_setopt_ptr(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)), "CURLOPT_HTTPHEADER")
    }

    /// Runs the transfer (blocking).
    func perform() throws(CurlFailure) {
        errorBuffer[0] = 0
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            throw CurlFailure(call: "curl_easy_perform", code: code, detail: String(cString: errorBuffer),
                              beforeSending: code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        }
    }

    /// CURLINFO_RESPONSE_CODE after `perform`.
    var responseCode: Int {
        var code = 0
        _ = pgw_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// CURLINFO_HTTP_VERSION after `perform`: `CURL_HTTP_VERSION_2_0` for HTTP/2.
    var httpVersion: Int {
        var version = 0
        _ = pgw_curl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        return version
    }

    private func check(_ code: CURLcode, _ option: String) throws(CurlFailure) {
        guard code == CURLE_OK else {
            throw CurlFailure(call: "curl_easy_setopt(\(option))", code: code, detail: String(cString: errorBuffer),
                              beforeSending: true)
        }
    }
}
