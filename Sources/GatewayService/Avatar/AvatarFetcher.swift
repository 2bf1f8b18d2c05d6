internal import Curl
import PayloadBuilder

/// One avatar download with libcurl, hop by hop, on the calling thread (it blocks).
///
/// Redirects are followed here, not by libcurl, so that every hop is checked
/// like the first: scheme, credentials, allow-list and literal address before
/// the request, and the resolved address in the open-socket callback. One
/// easy handle serves all hops of a fetch (a connection to the same origin is
/// reused); the total timeout spans them all.
struct AvatarFetcher: Sendable {
    let policy: AvatarPolicy

    /// Downloads and judges `url`: `.ok` with the body's type, size and
    /// SHA-256, or `.dropped` with the reason. `url` is what is reported, not
    /// the last redirect target: the device is given the original URL.
    func fetch(_ url: String) -> AvatarState {
        switch download(url) {
        case let .refused(reason):
            return .dropped(url: url, reason: reason.rawValue)
        case let .body(body):
            guard let type = AvatarImageType.sniff(body) else {
                return .dropped(url: url, reason: AvatarDropReason.notAnImage.rawValue)
            }
            guard policy.allowedTypes.contains(type) else {
                return .dropped(url: url, reason: AvatarDropReason.typeNotAllowed.rawValue)
            }
            return .ok(url: url, mime: type.mime, bytes: body.count, sha256: SHA256.hexDigest(body))
        }
    }

    private enum Download {
        case body([UInt8])
        case refused(AvatarDropReason)
    }

    private enum Hop {
        case body([UInt8])
        case redirect(String)
        case refused(AvatarDropReason)
    }

    private func download(_ original: String) -> Download {
        let deadline = ContinuousClock.now + policy.totalTimeout
        let curl: CurlEasy
        do {
            curl = try CurlEasy(options: options)
        } catch {
            return .refused(.fetchFailed)
        }
        var target = original
        var redirects = 0
        while true {
            let url: CurlURL
            switch policy.check(target) {
            case let .refused(reason): return .refused(reason)
            case let .passed(parsed): url = parsed
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .refused(.timeout) }
            switch exchange(url, on: curl, within: remaining) {
            case let .body(body):
                return .body(body)
            case let .refused(reason):
                return .refused(reason)
            case let .redirect(next):
                redirects += 1
                guard redirects <= policy.maxRedirects else { return .refused(.tooManyRedirects) }
                target = next
            }
        }
    }

    /// The options every hop shares. No `Accept-Encoding`: the body is judged
    /// and counted as sent, never inflated. No cookie engine.
    private var options: CurlOptions {
        CurlOptions(schemes: policy.allowHTTP ? ["http", "https"] : ["https"], caFile: policy.caBundlePath,
                    userAgent: policy.userAgent,
                    headers: ["Accept: " + policy.allowedTypes.map(\.mime).sorted().joined(separator: ", ")],
                    maximumBodyBytes: policy.maxBytes)
    }

    /// One request and response. A 200's body is kept, a redirect's counted
    /// and discarded; any other status stops the transfer before its body.
    /// Every address DNS gives is checked against the policy before a socket
    /// is opened to it; through the proxy, the host's addresses are checked
    /// before the tunnel, which goes to the admitted address.
    private func exchange(_ url: CurlURL, on curl: CurlEasy, within remaining: Duration) -> Hop {
        let policy = self.policy
        let request = CurlRequest(
            target: .parsed(url), timeout: remaining, connectTimeout: policy.connectTimeout,
            bodyUse: { status in status == 200 ? .keep : (300..<400).contains(status) ? .discard : .refuse },
            admitsAddress: { bytes in AvatarIPAddress(bytes: bytes).map(policy.admits) ?? false },
            proxy: CurlProxy(route: policy.route, host: url.host))
        let response: CurlResponse
        do {
            response = try curl.perform(request)
        } catch {
            return .refused(AvatarDropReason(error))
        }
        if (300..<400).contains(response.status), let next = response.redirectURL { return .redirect(next) }
        guard response.status == 200 else { return .refused(.httpStatus(response.status)) }
        return .body(response.body)
    }
}
