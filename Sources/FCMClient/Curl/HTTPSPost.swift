internal import CCurl
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
        try easy.set(CURLOPT_URL, "CURLOPT_URL", url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "CURLOPT_PROTOCOLS_STR", "https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "CURLOPT_REDIR_PROTOCOLS_STR", "https")
        try easy.set(CURLOPT_FOLLOWLOCATION, "CURLOPT_FOLLOWLOCATION", 0)
        try easy.set(CURLOPT_NOSIGNAL, "CURLOPT_NOSIGNAL", 1)
        try easy.set(CURLOPT_HTTP_VERSION, "CURLOPT_HTTP_VERSION", CURL_HTTP_VERSION_2TLS)
        try easy.set(CURLOPT_SSL_VERIFYPEER, "CURLOPT_SSL_VERIFYPEER", 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, "CURLOPT_SSL_VERIFYHOST", 2)
        if let caFile { try easy.set(CURLOPT_CAINFO, "CURLOPT_CAINFO", caFile) }
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, "CURLOPT_CONNECTTIMEOUT_MS", Self.milliseconds(connectTimeout))
        try easy.set(CURLOPT_TIMEOUT_MS, "CURLOPT_TIMEOUT_MS", Self.milliseconds(timeout))
        try easy.set(CURLOPT_USERAGENT, "CURLOPT_USERAGENT", "pushgw")
        try easy.set(CURLOPT_POST, "CURLOPT_POST", 1)
        try easy.setBody(body)
        try easy.setHeaders(headers + ["Expect:"])  // no 100-continue round trip
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try easy.set(CURLOPT_WRITEFUNCTION, "CURLOPT_WRITEFUNCTION", callback: curlWriteBody)
        try easy.set(CURLOPT_WRITEDATA, "CURLOPT_WRITEDATA", pointer: context)
        try easy.set(CURLOPT_HEADERFUNCTION, "CURLOPT_HEADERFUNCTION", callback: curlReceiveHeader)
        try easy.set(CURLOPT_HEADERDATA, "CURLOPT_HEADERDATA", pointer: context)
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

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
