public import NetworkSockets

/// What the avatar resolver may fetch, from where, and how much of it.
///
/// The defaults are the safe ones: HTTPS only; any host, but never a private,
/// loopback, link-local, unique-local, multicast, unspecified, CGNAT or cloud
/// metadata address (nor an IPv4-mapped IPv6 form of one), checked on the
/// address actually connected to, after DNS; at most 1 MiB within 3 seconds;
/// at most 3 redirects, each hop re-checked against all of the above; PNG,
/// JPEG, GIF or WebP as told by the body's magic bytes (the `Content-Type`
/// header is not trusted). Results are cached for 10 minutes, refusals for 60
/// seconds, at most 1024 URLs.
///
/// libcurl's own proxy environment variables are never read; the gateway's
/// proxy setting (`route`) is used instead. Through a proxy, the guard still
/// applies to the avatar's host, not to the proxy: the host is resolved and
/// checked here and the tunnel is opened to the checked address
/// (docs/DECISIONS.md, "Avatars through the outbound proxy").
public struct AvatarPolicy: Sendable, Equatable {
    /// Direct, or through the outbound proxy (except `NO_PROXY` hosts).
    public var route: ProxyRoute = .direct
    /// Whether plain `http` URLs may be fetched (and redirected to). Off by default.
    public var allowHTTP: Bool
    /// Hosts that may be fetched from, or `nil` for any public host. An entry is
    /// an exact host (`cdn.example.com`, compared case-insensitively, a trailing
    /// dot ignored) or `*.suffix`, which matches any host strictly below
    /// `suffix` (`a.suffix`, `a.b.suffix`) but not `suffix` itself.
    public var allowedHosts: [String]?
    /// Whether every address may be connected to, private ones included
    /// (tests on 127.0.0.1; never in production), except the cloud metadata
    /// services, which only an exception admits. Off by default.
    public var allowPrivateAddresses: Bool
    /// Networks that may be connected to although they are private, e.g. an
    /// internal avatar CDN at `10.20.0.0/16`. Empty by default.
    public var privateAddressExceptions: [AvatarAddressRange]
    /// The largest body accepted, in bytes; the download stops as soon as it
    /// is exceeded. 1 MiB by default.
    public var maxBytes: Int
    /// The bound on one resolution, every redirect hop, DNS and TLS included. 3 s by default.
    public var totalTimeout: Duration
    /// The bound on establishing one connection (within `totalTimeout`). 2 s by default.
    public var connectTimeout: Duration
    /// How many redirects are followed; one more is `too_many_redirects`. 3 by default.
    public var maxRedirects: Int
    /// Which image types are accepted. All four by default.
    public var allowedTypes: Set<AvatarImageType>
    /// How long an accepted avatar is remembered. 10 minutes by default.
    public var cacheTTL: Duration
    /// How long a refused (fetched but dropped) avatar is remembered. 60 s by default.
    public var negativeCacheTTL: Duration
    /// How many URLs the cache holds, least recently used evicted first; 0 disables it. 1024 by default.
    public var cacheCapacity: Int
    /// How many downloads run at once, each on its own thread (libcurl blocks). 4 by default.
    public var maxConcurrentFetches: Int
    /// A PEM bundle of trusted CAs instead of the system's, or `nil`.
    public var caBundlePath: String?
    /// The `User-Agent` header sent.
    public var userAgent: String

    /// A policy with the safe defaults, overriding what is given.
    public init(
        allowHTTP: Bool = false,
        allowedHosts: [String]? = nil,
        allowPrivateAddresses: Bool = false,
        privateAddressExceptions: [AvatarAddressRange] = [],
        maxBytes: Int = 1 << 20,
        totalTimeout: Duration = .seconds(3),
        connectTimeout: Duration = .seconds(2),
        maxRedirects: Int = 3,
        allowedTypes: Set<AvatarImageType> = AvatarImageType.all,
        cacheTTL: Duration = .seconds(600),
        negativeCacheTTL: Duration = .seconds(60),
        cacheCapacity: Int = 1024,
        maxConcurrentFetches: Int = 4,
        caBundlePath: String? = nil,
        userAgent: String = "pushgw-avatar/1"
    ) {
        self.allowHTTP = allowHTTP
        self.allowedHosts = allowedHosts
        self.allowPrivateAddresses = allowPrivateAddresses
        self.privateAddressExceptions = privateAddressExceptions
        self.maxBytes = maxBytes
        self.totalTimeout = totalTimeout
        self.connectTimeout = connectTimeout
        self.maxRedirects = maxRedirects
        self.allowedTypes = allowedTypes
        self.cacheTTL = cacheTTL
        self.negativeCacheTTL = negativeCacheTTL
        self.cacheCapacity = cacheCapacity
        self.maxConcurrentFetches = maxConcurrentFetches
        self.caBundlePath = caBundlePath
        self.userAgent = userAgent
    }
}

extension AvatarPolicy {
    /// The safe defaults (`AvatarPolicy()`), for settings to start from.
    public static let defaults = AvatarPolicy()

    /// Whether a connection to `address` is allowed: one inside an exception;
    /// never a cloud metadata service otherwise; any other address when
    /// private ones are allowed, else a public one. IPv4-mapped IPv6 addresses
    /// are judged as the IPv4 address they carry.
    func admits(_ address: AvatarIPAddress) -> Bool {
        let canonical = address.unmapped
        if privateAddressExceptions.contains(where: { $0.contains(canonical) }) { return true }
        if AvatarAddressClassifier.isMetadataService(canonical) { return false }
        if allowPrivateAddresses { return true }
        return !AvatarAddressClassifier.isForbidden(canonical)
    }

    /// Whether `host` (as parsed from a URL) is on the allow-list, or there is none.
    func admits(host: String) -> Bool {
        guard let allowedHosts else { return true }
        let host = Self.normalized(host)
        return allowedHosts.contains { entry in
            let entry = Self.normalized(entry)
            if entry.hasPrefix("*.") {
                let suffix = entry.dropFirst(1)  // ".suffix"
                return suffix.count > 1 && host.count > suffix.count && host.hasSuffix(suffix)
            }
            return host == entry
        }
    }

    /// Lowercased (ASCII), without a trailing dot, IPv6 brackets kept.
    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }
}
