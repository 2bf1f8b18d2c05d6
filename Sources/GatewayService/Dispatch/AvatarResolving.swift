public import PayloadBuilder

/// Decides what happens to the sender's avatar URL before rendering.
public protocol AvatarResolving: Sendable {
    func resolve(_ url: String?) async -> AvatarState
    /// The answer if it is known without waiting (no network), else nil.
    func resolveWithoutWaiting(_ url: String?) -> AvatarState?
}

extension AvatarResolver: AvatarResolving {}
