import CCurl
import Curl
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
            curl = try CurlEasy()
            try configure(curl)
        } catch {
            return .refused(.fetchFailed)
        }
        var target = original
        var redirects = 0
        while true {
            let url: AvatarURL
            switch policy.check(target) {
            case let .refused(reason): return .refused(reason)
            case let .passed(parsed): url = parsed
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .refused(.timeout) }
            let hop: Hop
            do {
                hop = try exchange(url, on: curl, within: remaining)
            } catch {
                return .refused(.fetchFailed)
            }
            switch hop {
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

    /// The options every hop shares.
    private func configure(_ curl: CurlEasy) throws(CurlFailure) {
        let protocols = policy.allowHTTP ? "http,https" : "https"
        try curl.set(CURLOPT_NOSIGNAL, 1, name: "CURLOPT_NOSIGNAL")
        try curl.set(CURLOPT_PROTOCOLS_STR, protocols, name: "CURLOPT_PROTOCOLS_STR")
        try curl.set(CURLOPT_REDIR_PROTOCOLS_STR, protocols, name: "CURLOPT_REDIR_PROTOCOLS_STR")
        try curl.set(CURLOPT_FOLLOWLOCATION, 0, name: "CURLOPT_FOLLOWLOCATION")
        // An empty proxy disables the proxy environment variables as well.
        try curl.set(CURLOPT_PROXY, "", name: "CURLOPT_PROXY")
        try curl.set(CURLOPT_NOPROXY, "*", name: "CURLOPT_NOPROXY")
        try curl.set(CURLOPT_HTTP09_ALLOWED, 0, name: "CURLOPT_HTTP09_ALLOWED")
        try curl.set(CURLOPT_SSL_VERIFYPEER, 1, name: "CURLOPT_SSL_VERIFYPEER")
        try curl.set(CURLOPT_SSL_VERIFYHOST, 2, name: "CURLOPT_SSL_VERIFYHOST")
        if let caBundlePath = policy.caBundlePath {
            try curl.set(CURLOPT_CAINFO, caBundlePath, name: "CURLOPT_CAINFO")
        }
        // Refuses a body whose Content-Length is already too large, before any of it arrives.
        try curl.set(CURLOPT_MAXFILESIZE_LARGE, large: max(policy.maxBytes, 0), name: "CURLOPT_MAXFILESIZE_LARGE")
        try curl.set(CURLOPT_USERAGENT, policy.userAgent, name: "CURLOPT_USERAGENT")
        try curl.setHeaders(["Accept: " + policy.allowedTypes.map(\.mime).sorted().joined(separator: ", ")])
        // No CURLOPT_ACCEPT_ENCODING: the body is judged and counted as sent, never inflated.
        // No cookie engine: CURLOPT_COOKIEFILE is never set.
    }

    /// One request and response.
    private func exchange(_ url: AvatarURL, on curl: CurlEasy, within remaining: Duration) throws(CurlFailure) -> Hop {
        let transfer = AvatarTransfer(policy: policy, curl: curl)
        try transfer.attach()
        try curl.set(CURLOPT_TIMEOUT_MS, CurlEasy.milliseconds(remaining), name: "CURLOPT_TIMEOUT_MS")
        try curl.set(CURLOPT_CONNECTTIMEOUT_MS, CurlEasy.milliseconds(min(policy.connectTimeout, remaining)), name: "CURLOPT_CONNECTTIMEOUT_MS")
        try curl.set(CURLOPT_CURLU, pointer: UnsafeMutableRawPointer(url.rawHandle), name: "CURLOPT_CURLU")
        let failure: CurlFailure?
        do {
            try withExtendedLifetime((url, transfer)) { () throws(CurlFailure) in try curl.perform() }
            failure = nil
        } catch {
            failure = error
        }
        try curl.set(CURLOPT_CURLU, pointer: nil, name: "CURLOPT_CURLU")

        let status = curl.responseCode
        let isRedirect = (300..<400).contains(status)
        if let failure {
            if transfer.stoppedForStatus { return .refused(.httpStatus(status)) }
            if transfer.exceededLimit || failure.code == CURLE_FILESIZE_EXCEEDED {
                let judged = status == 0 || status == 200 || isRedirect
                return .refused(judged ? .tooLarge : .httpStatus(status))
            }
            return .refused(AvatarDropReason(curlCode: failure.code, refusedAddress: transfer.refusedAddress))
        }
        if isRedirect, let next = curl.redirectURL { return .redirect(next) }
        guard status == 200 else { return .refused(.httpStatus(status)) }
        return .body(transfer.body)
    }
}
