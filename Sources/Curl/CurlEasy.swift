internal import CCurl
internal import CCurlShims

/// Owns one libcurl easy handle (with its request header list and error
/// buffer) and frees them in `deinit`: the one Swift wrapper of libcurl,
/// shared by the OAuth token exchange (FCMClient) and the avatar download
/// (GatewayService). Callers see Swift types only: `CurlOptions` for the
/// handle, `CurlRequest` per exchange, `CurlResponse` or a `CurlFailure`.
///
/// One handle may perform several exchanges in turn (the avatar's redirect
/// hops), reusing its connection to the same origin.
///
/// Thread-confined: created, performed and released on one thread. The easy
/// interface blocks, so that thread is never one of Swift's cooperative pool.
package final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_CONNECT_TO of the current transfer (a proxied one whose
    /// target address was checked), freed after it.
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_ERRORBUFFER: libcurl writes a detailed message here.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let options: CurlOptions

    /// `curl_global_init`, run once per process before the first handle
    /// (never cleaned up: handles may exist until the process ends). An
    /// immutable, lazily initialized constant: Swift runs the initializer
    /// exactly once, thread-safely.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Runs `curl_global_init` if nothing has yet: for code that calls
    /// libcurl other than through a handle (the URL API) first.
    static func initializeGlobally() throws(CurlFailure) {
        let initialized = globalInit
        guard initialized == CURLE_OK else {
            throw CurlFailure(call: "curl_global_init", code: initialized, kind: .setup, beforeSending: true)
        }
    }

    /// A fresh handle with `options` applied; a failure names the option libcurl refused.
    package init(options: CurlOptions) throws(CurlFailure) {
        try Self.initializeGlobally()
        guard let handle = curl_easy_init() else {
            throw CurlFailure(call: "curl_easy_init", message: "out of memory", kind: .setup, beforeSending: true)
        }
        self.handle = handle
        self.options = options
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Set first, so that every later failure can be described.
        _ = pgw_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        try apply(options)
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        if let connectToList { curl_slist_free_all(connectToList) }
        errorBuffer.deallocate()
    }

    /// Runs one exchange on this thread and blocks until it ends. A failure
    /// says what went wrong as a `CurlFailure.Kind`; its `beforeSending` is
    /// true only when the request certainly never reached a server.
    package func perform(_ request: CurlRequest) throws(CurlFailure) -> CurlResponse {
        let context = CurlTransferContext(request: request, limit: max(options.maximumBodyBytes, 0),
                                          keptHeaders: options.keptHeaders, checksSocketAddresses: request.proxy == nil,
                                          currentStatus: { [unowned self] in responseCode })
        // Nothing may point at the context or the parsed URL once this returns,
        // also when setting up the transfer failed half-way.
        defer { clearPointers(request) }
        try prepare(request, context: Unmanaged.passUnretained(context).toOpaque())
        errorBuffer[0] = 0
        let code = withExtendedLifetime((request, context)) { curl_easy_perform(handle) }
        let status = responseCode
        guard code == CURLE_OK else {
            if let refused = context.refusedStatus {
                throw CurlFailure(call: "curl_easy_perform", message: "the answer's status \(refused) was refused",
                                  kind: .statusRefused(refused), status: status, beforeSending: false)
            }
            if context.exceededLimit {
                throw CurlFailure(call: "curl_easy_perform",
                                  message: "the response is larger than \(options.maximumBodyBytes) bytes",
                                  kind: .bodyTooLarge, status: status, beforeSending: false)
            }
            let proxyStatus = request.proxy == nil ? 0 : connectStatus
            if proxyStatus != 0, !(200..<300).contains(proxyStatus) {
                throw CurlFailure(call: "curl_easy_perform", code: code, detail: String(cString: errorBuffer),
                                  kind: .proxyRefused(proxyStatus), beforeSending: true)
            }
            let kind: CurlFailure.Kind? = code == CURLE_COULDNT_CONNECT && context.refusedAddress ? .addressRefused : nil
            throw CurlFailure(call: "curl_easy_perform", code: code, detail: String(cString: errorBuffer), kind: kind,
                              status: status, beforeSending: code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        }
        return CurlResponse(status: status, headers: context.headers, body: context.body, redirectURL: redirectURL,
                            usedHTTP2: httpVersion == CURL_HTTP_VERSION_2_0)
    }

    /// A libcurl millisecond timeout for `duration`: rounded up, at least 1
    /// (0 would mean no timeout at all).
    package static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int((duration / .milliseconds(1)).rounded(.up)))
    }

    // MARK: options

    private func apply(_ options: CurlOptions) throws(CurlFailure) {
        let schemes = options.schemes.joined(separator: ",")
        try set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        // When the timeout fires during a DNS lookup, return at once and
        // leave the resolver thread to end by itself: without this libcurl
        // waits for the lookup, holding the caller's thread for the system
        // resolver's whole timeout (10–30 s), far past ours: four avatars
        // on a silent DNS server would stall every avatar download.
        try set(CURLOPT_QUICK_EXIT, 1, "CURLOPT_QUICK_EXIT")
        try set(CURLOPT_PROTOCOLS_STR, schemes, "CURLOPT_PROTOCOLS_STR")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, schemes, "CURLOPT_REDIR_PROTOCOLS_STR")
        try set(CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        try set(CURLOPT_HTTP09_ALLOWED, 0, "CURLOPT_HTTP09_ALLOWED")
        try set(CURLOPT_SSL_VERIFYPEER, 1, "CURLOPT_SSL_VERIFYPEER")
        try set(CURLOPT_SSL_VERIFYHOST, 2, "CURLOPT_SSL_VERIFYHOST")
        if let caFile = options.caFile { try set(CURLOPT_CAINFO, caFile, "CURLOPT_CAINFO") }
        if options.offersHTTP2 { try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS, "CURLOPT_HTTP_VERSION") }
        // Refuses a body whose Content-Length is already too large, before any of it arrives.
        try check(pgw_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(options.maximumBodyBytes, 0))),
                  "CURLOPT_MAXFILESIZE_LARGE")
        try set(CURLOPT_USERAGENT, options.userAgent, "CURLOPT_USERAGENT")
        try setHeaders(options.headers + ["Expect:"])  // no 100-continue round trip
        try check(pgw_curl_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteBody), "CURLOPT_WRITEFUNCTION")
        try check(pgw_curl_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION, curlReceiveHeader), "CURLOPT_HEADERFUNCTION")
        try check(pgw_curl_setopt_opensocket_callback(handle, CURLOPT_OPENSOCKETFUNCTION, curlOpenSocket),
                  "CURLOPT_OPENSOCKETFUNCTION")
    }

    private func prepare(_ request: CurlRequest, context: UnsafeMutableRawPointer) throws(CurlFailure) {
        switch request.target {
        case .text(let url): try set(CURLOPT_URL, url, "CURLOPT_URL")
        case .parsed(let url): try setPointer(CURLOPT_CURLU, UnsafeMutableRawPointer(url.handle), "CURLOPT_CURLU")
        }
        if let body = request.postBody {
            try set(CURLOPT_POST, 1, "CURLOPT_POST")
            try check(pgw_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                      "CURLOPT_POSTFIELDSIZE_LARGE")
            // CURLOPT_COPYPOSTFIELDS, because CURLOPT_POSTFIELDS is not copied.
            let code = body.withUnsafeBufferPointer { buffer in
                pgw_curl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
            }
            try check(code, "CURLOPT_COPYPOSTFIELDS")
        } else {
            try set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
        }
        // The proxy's own lookup of the target (if any) spends from the
        // transfer's budgets: the request's timeout bounds the whole of it.
        let started = ContinuousClock.now
        try prepareProxy(request)
        let spent = ContinuousClock.now - started
        let timeout = request.timeout - spent
        guard timeout > .zero else {
            throw CurlFailure(call: "curl_easy_perform", message: "no time left after the lookup", kind: .timedOut,
                              beforeSending: true)
        }
        try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout), "CURLOPT_TIMEOUT_MS")
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(min(max(request.connectTimeout - spent, .milliseconds(1)), timeout)),
                "CURLOPT_CONNECTTIMEOUT_MS")
        try setPointer(CURLOPT_WRITEDATA, context, "CURLOPT_WRITEDATA")
        try setPointer(CURLOPT_HEADERDATA, context, "CURLOPT_HEADERDATA")
        try setPointer(CURLOPT_OPENSOCKETDATA, context, "CURLOPT_OPENSOCKETDATA")
    }

    /// The request's proxy, or none. An empty `CURLOPT_PROXY` also keeps
    /// libcurl from reading `https_proxy` and the like: the caller's settings
    /// alone decide. Through a proxy, every scheme is tunnelled with
    /// `CONNECT`, so that the proxy never fetches on our behalf, and a
    /// request that checks addresses has its target resolved and checked
    /// here, the tunnel pinned to the admitted address (`CURLOPT_CONNECT_TO`).
    private func prepareProxy(_ request: CurlRequest) throws(CurlFailure) {
        guard let proxy = request.proxy else {
            try set(CURLOPT_PROXY, "", "CURLOPT_PROXY")
            try set(CURLOPT_NOPROXY, "*", "CURLOPT_NOPROXY")
            return
        }
        try set(CURLOPT_PROXY, proxy.url, "CURLOPT_PROXY")
        try set(CURLOPT_NOPROXY, "", "CURLOPT_NOPROXY")
        try set(CURLOPT_HTTPPROXYTUNNEL, 1, "CURLOPT_HTTPPROXYTUNNEL")
        if let username = proxy.username {
            // CURLAUTH_BASIC (a cast in a macro, which Swift does not import).
            try set(CURLOPT_PROXYAUTH, 1, "CURLOPT_PROXYAUTH")
            try set(CURLOPT_PROXYUSERNAME, username, "CURLOPT_PROXYUSERNAME")
            try set(CURLOPT_PROXYPASSWORD, proxy.password ?? "", "CURLOPT_PROXYPASSWORD")
        }
        guard let admits = request.admitsAddress else { return }
        guard case let .parsed(url) = request.target, url.port > 0 else {
            throw CurlFailure(call: "curl_easy_perform", message: "checking the target's address needs a parsed URL",
                              kind: .setup, beforeSending: true)
        }
        var name = url.host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let addresses = try CurlAddressLookup.addresses(of: name, within: min(request.connectTimeout, request.timeout))
        guard let admitted = addresses.first(where: admits) else {
            throw CurlFailure(call: "curl_easy_perform", message: "no address of \(url.host) is allowed",
                              kind: .addressRefused, beforeSending: true)
        }
        let rule = "\(url.host):\(url.port):\(CurlAddressLookup.text(admitted)):\(url.port)"
        guard let list = curl_slist_append(nil, rule) else {
            throw CurlFailure(call: "curl_slist_append", message: "out of memory", kind: .setup, beforeSending: true)
        }
        if let connectToList { curl_slist_free_all(connectToList) }
        connectToList = list
        try setPointer(CURLOPT_CONNECT_TO, UnsafeMutableRawPointer(list), "CURLOPT_CONNECT_TO")
    }

    /// Unsets what `prepare` pointed at. Clearing a pointer option cannot
    /// fail (libcurl only stores it), so the codes are not checked.
    private func clearPointers(_ request: CurlRequest) {
        if case .parsed = request.target { _ = pgw_curl_setopt_ptr(handle, CURLOPT_CURLU, nil) }
        if let connectToList {
            _ = pgw_curl_setopt_ptr(handle, CURLOPT_CONNECT_TO, nil)
            curl_slist_free_all(connectToList)
            self.connectToList = nil
        }
        for option in [CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_OPENSOCKETDATA] {
            _ = pgw_curl_setopt_ptr(handle, option, nil)
        }
    }

    /// Replaces the request header lines (`Name: value`); the list lives as long as the handle.
    private func setHeaders(_ lines: [String]) throws(CurlFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw CurlFailure(call: "curl_slist_append", message: "out of memory", kind: .setup, beforeSending: true)
            }
            list = appended
        }
        do {
            try setPointer(CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list), "CURLOPT_HTTPHEADER")
        } catch {
            if let list { curl_slist_free_all(list) }
            throw error
        }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
    }

    private func set(_ option: CURLoption, _ value: Int, _ name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_long(handle, option, value), name)
    }

    private func set(_ option: CURLoption, _ value: String, _ name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_str(handle, option, value), name)
    }

    private func setPointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?, _ name: String) throws(CurlFailure) {
        try check(pgw_curl_setopt_ptr(handle, option, value), name)
    }

    private func check(_ code: CURLcode, _ option: String) throws(CurlFailure) {
        guard code != CURLE_OK else { return }
        throw CurlFailure(call: "curl_easy_setopt(\(option))", code: code, detail: String(cString: errorBuffer),
                          kind: .setup, beforeSending: true)
    }

    // MARK: results

    /// `CURLINFO_RESPONSE_CODE`: the last status received, 0 before any.
    private var responseCode: Int {
        var code = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0
    }

    /// `CURLINFO_HTTP_CONNECTCODE`: the proxy's answer to `CONNECT`, 0 before any.
    private var connectStatus: Int {
        var code = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &code) == CURLE_OK ? code : 0
    }

    /// `CURLINFO_HTTP_VERSION` after `perform`: `CURL_HTTP_VERSION_2_0` for HTTP/2.
    private var httpVersion: Int {
        var version = 0
        return pgw_curl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version) == CURLE_OK ? version : 0
    }

    /// `CURLINFO_REDIRECT_URL`: the absolute target of a 3xx `Location`, if any.
    private var redirectURL: String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pgw_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
