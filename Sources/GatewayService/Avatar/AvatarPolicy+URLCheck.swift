/// What checking a URL against the policy, before any connection, gave.
enum AvatarURLCheck {
    /// Parsed and allowed so far; the address is checked again after DNS.
    case passed(AvatarURL)
    /// Refused without touching the network.
    case refused(AvatarDropReason)
}

extension AvatarPolicy {
    /// Checks what can be checked before DNS: the URL parses, the scheme is
    /// allowed, it carries no credentials, the host is on the allow-list, and
    /// a literal IP host is an allowed address. Runs for the original URL and
    /// again for every redirect target.
    func check(_ text: String) -> AvatarURLCheck {
        guard let url = AvatarURL(text) else { return .refused(.badURL) }
        guard url.scheme == "https" || (url.scheme == "http" && allowHTTP) else { return .refused(.schemeNotAllowed) }
        guard !url.host.isEmpty else { return .refused(.badURL) }
        guard !url.hasCredentials else { return .refused(.credentialsInURL) }
        guard admits(host: url.host) else { return .refused(.hostNotAllowed) }
        if let literal = AvatarIPAddress(literal: url.host), !admits(literal) { return .refused(.privateAddress) }
        return .passed(url)
    }
}
