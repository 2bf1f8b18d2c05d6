/// Which web push endpoints the sender may send to: a subscription's
/// endpoint is a URL the browser (and so whoever feeds the chat backend)
/// chose, so it is checked before any connection, and again after DNS.
///
/// By default: https only, to the major browsers' push services
/// (`defaultAllowedHosts`), and only to public unicast addresses. The
/// address rule is the caller's (`admitsAddress`, the gateway's SSRF guard,
/// the same as for avatars); a deployment may widen the host list, and
/// tests allow the loopback simulator explicitly.
public struct WebPushEndpointPolicy: Sendable {
    /// The push services of Chrome and Edge's FCM, Firefox, Safari and Windows.
    public static let defaultAllowedHosts = ["fcm.googleapis.com", "updates.push.services.mozilla.com",
                                             "web.push.apple.com", "*.notify.windows.com"]

    /// Exact hosts (case-insensitive, a trailing dot ignored) or `*.suffix`
    /// (any host strictly below `suffix`).
    public var allowedHosts: [String]
    /// Asked after DNS about each address (network-order bytes) before a
    /// connection is made to it; nil admits every address.
    public var admitsAddress: (@Sendable ([UInt8]) -> Bool)?

    public init(allowedHosts: [String] = WebPushEndpointPolicy.defaultAllowedHosts,
                admitsAddress: (@Sendable ([UInt8]) -> Bool)?) {
        self.allowedHosts = allowedHosts
        self.admitsAddress = admitsAddress
    }

    /// Whether `host` (lowercase, as the origin has it) is on the list.
    public func admits(host: String) -> Bool {
        let host = Self.normalized(host)
        return allowedHosts.contains { entry in
            let entry = Self.normalized(entry)
            if entry.hasPrefix("*.") {
                let suffix = entry.dropFirst(1)
                return suffix.count > 1 && host.count > suffix.count && host.hasSuffix(suffix)
            }
            return host == entry
        }
    }

    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }
}
