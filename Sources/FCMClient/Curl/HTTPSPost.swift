import HTTP2Client
internal import Curl
import NetworkSockets
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
    /// Direct or through the outbound proxy (the same route as the FCM
    /// connections), decided for the URL's host.
    var route: ProxyRoute = .direct

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
        let easy = try CurlEasy(options: CurlOptions(schemes: ["https"], caFile: caFile, headers: headers,
                                                     maximumBodyBytes: maximumResponseBytes, keptHeaders: keptHeaders,
                                                     offersHTTP2: true))
        let proxy = CurlURL(url).flatMap { CurlProxy(route: route, host: $0.host) }
        let response = try easy.perform(CurlRequest(target: .text(url), postBody: body, timeout: timeout,
                                                    connectTimeout: connectTimeout, proxy: proxy))
        return Response(status: response.status, headers: response.headers, body: response.body,
                        httpMajorVersion: response.usedHTTP2 ? 2 : 1)
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
