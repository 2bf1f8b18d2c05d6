internal import Curl

/// What checking a URL against the policy, before any connection, gave.
enum AvatarURLCheck {
    /// Parsed and allowed so far; the address is checked again after DNS.
    /// The parsed URL is the one the transfer connects to.
    case passed(CurlURL)
    /// Refused without touching the network.
    case refused(AvatarDropReason)
}

extension AvatarPolicy {
    /// Checks what can be checked before DNS: the URL parses, the scheme is
    /// allowed, it carries no credentials, the host is on the allow-list, and
    /// a literal IP host is an allowed address. Runs for the original URL and
    /// again for every redirect target.
    func check(_ text: String) -> AvatarURLCheck {
        guard let url = Self.parse(text) else { return .refused(.badURL) }
        guard url.scheme == "https" || (url.scheme == "http" && allowHTTP) else { return .refused(.schemeNotAllowed) }
        guard !url.host.isEmpty else { return .refused(.badURL) }
        guard !url.hasCredentials else { return .refused(.credentialsInURL) }
        guard admits(host: url.host) else { return .refused(.hostNotAllowed) }
        if let literal = AvatarIPAddress(literal: url.host), !admits(literal) { return .refused(.privateAddress) }
        return .passed(url)
    }

    /// Longer URLs are refused as `bad_url`.
    static let maxURLLength = 2048

    /// `text` as libcurl reads it; nil when libcurl refuses it, it is too
    /// long, or it contains a control character or a space (which C would
    /// truncate or libcurl might read differently from the device).
    private static func parse(_ text: String) -> CurlURL? {
        guard text.utf8.count <= maxURLLength,
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        return CurlURL(text)
    }
}
