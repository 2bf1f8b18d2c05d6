internal import Curl
import Dispatch
import HTTP2Client
import NetworkSockets
import PushGWSync
import Synchronization

/// Web push over HTTP/1.1, for push services whose ALPN does not pick
/// `h2`: each message one libcurl POST (HTTP/1.1 only, https only, the
/// endpoint policy's address rule after DNS, the same CA file), on a
/// bounded set of serial queues, so at most `threads` threads block in
/// libcurl however many messages wait.
///
/// A message is one connection: an origin gets here only when its service
/// refused HTTP/2, which the browsers' push services do not.
///
/// Thread-safety: `Sendable`; `send` may be called from any thread.
final class WebPushHTTP1Transport: Sendable {
    /// One answer: the status and the headers a web push outcome reads.
    struct Answer: Sendable {
        var status: Int
        var location: String?
        var retryAfter: String?
    }

    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    private let caFile: String?
    private let admitsAddress: (@Sendable ([UInt8]) -> Bool)?
    private let connectTimeout: Duration
    private let route: ProxyRoute

    init(threads: Int, caFile: String?, admitsAddress: (@Sendable ([UInt8]) -> Bool)?, connectTimeout: Duration = .seconds(10),
         route: ProxyRoute = .direct) {
        queues = (0..<max(1, threads)).map { DispatchQueue(label: "pushgw-webpush-http1-\($0)") }
        self.caFile = caFile
        self.admitsAddress = admitsAddress
        self.connectTimeout = connectTimeout
        self.route = route
    }

    /// POSTs `body` to `endpoint` with `headers` (`Name: value` lines) and
    /// calls `completion` with the answer or the transport's failure.
    func send(endpoint: String, headers: [String], body: [UInt8], timeout: Duration,
              completion: @escaping @Sendable (Result<Answer, TransportError>) -> Void) {
        let queue = queues[next.wrappingAdd(1, ordering: .relaxed).oldValue % queues.count]
        let caFile = caFile
        let admitsAddress = admitsAddress
        let connectTimeout = min(connectTimeout, timeout)
        let route = route
        queue.async {
            // Through the outbound proxy, libcurl checks the endpoint's own
            // addresses and tunnels to one the rule admits (`CurlEasy`).
            let url = CurlURL(endpoint)
            let proxy = url.flatMap { CurlProxy(route: route, host: $0.host) }
            do throws(CurlFailure) {
                let easy = try CurlEasy(options: CurlOptions(schemes: ["https"], caFile: caFile, headers: headers,
                                                             maximumBodyBytes: 64 * 1024, keptHeaders: ["location", "retry-after"],
                                                             offersHTTP2: false))
                let response = try easy.perform(CurlRequest(target: url.map { .parsed($0) } ?? .text(endpoint), postBody: body,
                                                            timeout: timeout, connectTimeout: connectTimeout,
                                                            admitsAddress: admitsAddress.map { rule in { rule($0) } }, proxy: proxy))
                completion(.success(Answer(status: response.status, location: response.headers["location"],
                                           retryAfter: response.headers["retry-after"])))
            } catch {
                completion(.failure(Self.transportError(error)))
            }
        }
    }

    /// libcurl's failure in the transport's terms.
    private static func transportError(_ failure: CurlFailure) -> TransportError {
        switch failure.kind {
        case .addressRefused: TransportError(.addressRefused, failure.description)
        case .timedOut: TransportError(failure.beforeSending ? .connectFailed : .timeout, failure.description)
        case .tls: TransportError(.certificateRejected, failure.description)
        case .setup, .unsupportedScheme, .malformedURL: TransportError(.protocolError, failure.description)
        default: TransportError(failure.beforeSending ? .connectFailed : .connectionLost, failure.description)
        }
    }
}
