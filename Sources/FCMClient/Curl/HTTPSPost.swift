internal import CCurl
internal import Curl
import Dispatch

/// One HTTPS POST over libcurl's easy interface, with the limits a
/// low-volume call to an outside service needs: HTTPS only (also after
/// redirects, which are not followed), peer and host verification with an
/// optional CA file, connect and total timeouts, a response-size cap, no
/// signals. HTTP/2 is negotiated by ALPN when the server offers it
/// (`CURL_HTTP_VERSION_2TLS`), else HTTP/1.1.
struct HTTPSPost: Sendable {
    var url: String
    /// Header lines, `Name: value`.
    var headers: [String]
    var body: [UInt8]
    /// A PEM file of CA certificates to trust instead of the system's.
    var caFile: String?
    var connectTimeout: Duration
    /// For the whole transfer.
    var timeout: Duration
    /// A larger response body fails the transfer.
    var maximumResponseBytes: Int
    /// Response header fields to keep (lowercase names).
    var keptHeaders: Set<String> = ["retry-after", "content-type"]

    /// The answer: status, kept header fields, body, and the HTTP version used.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// 2 for HTTP/2, 1 for HTTP/1.x.
        var httpMajorVersion: Int
    }

    /// Runs the transfer on the calling thread (blocking): never call it
    /// from Swift's cooperative pool; `send(on:)` does it on a queue.
    func perform() throws(CurlFailure) -> Response {
        let easy = try CurlEasy()
        let sink = CurlResponseSink(limit: maximumResponseBytes, keptHeaders: keptHeaders)
        try easy.set(CURLOPT_URL, url, name: "CURLOPT_URL")
        try easy.set(CURLOPT_PROTOCOLS_STR, "https", name: "CURLOPT_PROTOCOLS_STR")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "https", name: "CURLOPT_REDIR_PROTOCOLS_STR")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0, name: "CURLOPT_FOLLOWLOCATION")
        try easy.set(CURLOPT_NOSIGNAL, 1, name: "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS, name: "CURLOPT_HTTP_VERSION")
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1, name: "CURLOPT_SSL_VERIFYPEER")
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2, name: "CURLOPT_SSL_VERIFYHOST")
        if let caFile { try easy.set(CURLOPT_CAINFO, caFile, name: "CURLOPT_CAINFO") }
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, CurlEasy.milliseconds(connectTimeout), name: "CURLOPT_CONNECTTIMEOUT_MS")
        try easy.set(CURLOPT_TIMEOUT_MS, CurlEasy.milliseconds(timeout), name: "CURLOPT_TIMEOUT_MS")
        try easy.set(CURLOPT_USERAGENT, "pushgw", name: "CURLOPT_USERAGENT")
        try easy.set(CURLOPT_POST, 1, name: "CURLOPT_POST")
        try easy.setBody(body)
        try easy.setHeaders(headers + ["Expect:"])  // no 100-continue round trip
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try easy.set(CURLOPT_WRITEFUNCTION, callback: curlWriteBody, name: "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, pointer: context, name: "CURLOPT_WRITEDATA")
        try easy.set(CURLOPT_HEADERFUNCTION, callback: curlReceiveHeader, name: "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_HEADERDATA, pointer: context, name: "CURLOPT_HEADERDATA")
        do {
            try withExtendedLifetime(sink) { () throws(CurlFailure) in try easy.perform() }
        } catch {
            if sink.exceededLimit {
                throw CurlFailure(call: "curl_easy_perform",
                                  message: "the response is larger than \(maximumResponseBytes) bytes", beforeSending: false)
            }
            throw error
        }
        let major = easy.httpVersion == CURL_HTTP_VERSION_2_0 ? 2 : 1
        return Response(status: easy.responseCode, headers: sink.headers, body: sink.body, httpMajorVersion: major)
    }

    /// Runs `perform()` on `queue` and resumes the caller with its result,
    /// so no thread of the cooperative pool blocks in libcurl.
    func send(on queue: DispatchQueue) async -> Result<Response, CurlFailure> {
        await withCheckedContinuation { continuation in
            queue.async {
                let result: Result<Response, CurlFailure>
                do throws(CurlFailure) {
                    result = .success(try perform())
                } catch {
                    result = .failure(error)
                }
                continuation.resume(returning: result)
            }
        }
    }
}
