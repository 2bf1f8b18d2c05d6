public import PayloadBuilder

/// Decides what happens to the sender's avatar URL before rendering.
public protocol AvatarResolving: Sendable {
    func resolve(_ url: String?) async -> AvatarState
    /// The answer if it is known without waiting (no network), else nil.
    func resolveWithoutWaiting(_ url: String?) -> AvatarState?
}

/// Forwards the URL without checking it: for `pushgw render` and tests
/// that are not about avatars. The service uses the real resolver.
public struct UncheckedAvatars: AvatarResolving {
    public init() {}

    public func resolve(_ url: String?) async -> AvatarState {
        AvatarState(unresolvedURL: url)
    }

    public func resolveWithoutWaiting(_ url: String?) -> AvatarState? {
        AvatarState(unresolvedURL: url)
    }
}

extension AvatarResolver: AvatarResolving {}
