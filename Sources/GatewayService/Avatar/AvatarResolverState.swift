import PayloadBuilder

/// The resolver's shared state as a value type that returns what to do: the
/// cache and, per URL being fetched, who is waiting for it.
///
/// Kept under the resolver's lock; tested without sockets or threads (the
/// waiter type is generic: continuations in the resolver, plain values in
/// tests).
struct AvatarResolverState<Waiter> {
    typealias Instant = ContinuousClock.Instant

    /// What `admit` decided for one resolve.
    enum Admission: Equatable {
        /// A live cache entry; answer it now.
        case cached(AvatarState)
        /// A fetch of this URL is running; the waiter was added to it.
        case joined
        /// Nothing known; the waiter is the first of a new fetch, which the caller must start.
        case fetch
    }

    private var cache: AvatarCache<AvatarState>
    /// The policy's decisions by URL. A resolver's policy never changes, so a
    /// decision stays true; it is remembered so that a repeated URL is not
    /// parsed again on every event, and forgotten after `decisionTTL` or when
    /// least recently used, like the cache.
    private var decisions: AvatarCache<AvatarPolicyDecision>
    private var inFlight: [String: [Waiter]] = [:]
    private let positiveTTL: Duration
    private let negativeTTL: Duration

    /// How long a policy decision is remembered.
    static var decisionTTL: Duration { .seconds(3600) }

    init(capacity: Int, positiveTTL: Duration, negativeTTL: Duration) {
        self.cache = AvatarCache(capacity: capacity)
        self.decisions = AvatarCache(capacity: capacity)
        self.positiveTTL = positiveTTL
        self.negativeTTL = negativeTTL
    }

    /// The remembered policy decision for `url`, if any.
    mutating func decision(for url: String, now: Instant) -> AvatarPolicyDecision? {
        decisions.value(for: url, now: now)
    }

    /// Remembers the policy's decision for `url`.
    mutating func remember(_ decision: AvatarPolicyDecision, for url: String, now: Instant) {
        decisions.insert(decision, for: url, expires: now + Self.decisionTTL)
    }

    /// How many URLs are being fetched right now.
    /// What is known of `url` without the network, in one visit (the
    /// render path asks for every event).
    enum Lookup: Equatable {
        /// The policy refuses it.
        case refused(AvatarDropReason)
        /// Allowed and downloaded: the cached result.
        case cached(AvatarState)
        /// Allowed, not in the cache.
        case uncached
        /// The policy has not judged it yet.
        case undecided
    }

    mutating func lookup(_ url: String, now: Instant) -> Lookup {
        switch decisions.value(for: url, now: now) {
        case nil: return .undecided
        case let .refused(reason)?: return .refused(reason)
        case .passed?: return cache.value(for: url, now: now).map(Lookup.cached) ?? .uncached
        }
    }

    var fetchesInFlight: Int { inFlight.count }

    /// Looks `url` up in the cache, else joins or starts its fetch.
    mutating func admit(_ url: String, waiter: Waiter, now: Instant) -> Admission {
        if let cached = cache.value(for: url, now: now) { return .cached(cached) }
        if inFlight[url] != nil {
            inFlight[url, default: []].append(waiter)
            return .joined
        }
        inFlight[url] = [waiter]
        return .fetch
    }

    /// Takes out of `url`'s fetch the first waiter that `matches`, which then
    /// no longer gets the result; nil when none is waiting (any more).
    mutating func withdraw(_ url: String, where matches: (Waiter) -> Bool) -> Waiter? {
        guard let index = inFlight[url]?.firstIndex(where: matches) else { return nil }
        return inFlight[url]!.remove(at: index)
    }

    /// Records the fetch's result (accepted ones for the positive TTL, dropped
    /// ones for the negative TTL; nothing when `remember` is false) and hands
    /// back everyone waiting for it.
    mutating func finish(_ url: String, result: AvatarState, now: Instant, remember: Bool = true) -> [Waiter] {
        let ttl: Duration
        switch result {
        case _ where !remember: ttl = .zero
        case .ok: ttl = positiveTTL
        case .dropped: ttl = negativeTTL
        case .none, .unchecked: ttl = .zero
        }
        if ttl > .zero { cache.insert(result, for: url, expires: now + ttl) }
        return inFlight.removeValue(forKey: url) ?? []
    }
}

/// What `AvatarPolicy.check` decided for a URL before any connection, as the
/// resolver remembers it; a passed URL keeps its host as libcurl parsed it,
/// lowercased: the key the download pool's per-host limit counts by.
enum AvatarPolicyDecision: Equatable {
    case passed(host: String)
    case refused(AvatarDropReason)

    init(_ check: AvatarURLCheck) {
        switch check {
        case let .passed(url): self = .passed(host: url.host.lowercased())
        case let .refused(reason): self = .refused(reason)
        }
    }
}
