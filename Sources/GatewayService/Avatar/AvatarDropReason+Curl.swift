internal import Curl

extension AvatarDropReason {
    /// The one translation of a failed transfer into a drop reason. A body
    /// too large is judged as such only when the answer was one the fetch
    /// reads (200 or a redirect); for any other status, the status is the
    /// reason.
    init(_ failure: CurlFailure) {
        switch failure.kind {
        case .statusRefused(let status):
            self = .httpStatus(status)
        case .bodyTooLarge:
            let status = failure.status
            self = status == 0 || status == 200 || (300..<400).contains(status) ? .tooLarge : .httpStatus(status)
        case .addressRefused:
            self = .privateAddress
        case .couldNotConnect, .proxyRefused:
            self = .connectFailed
        case .couldNotResolveHost:
            self = .dnsFailed
        case .timedOut:
            self = .timeout
        case .unsupportedScheme:
            self = .schemeNotAllowed
        case .malformedURL:
            self = .badURL
        case .tooManyRedirects:
            self = .tooManyRedirects
        case .tls:
            self = .tlsFailed
        case .transfer:
            self = .transferFailed
        case .setup, .other:
            self = .fetchFailed
        }
    }
}
