public import PayloadBuilder

/// Decides what happens to the sender's avatar URL before rendering.
public protocol AvatarResolving: Sendable {
    /// The avatar to forward, answered within `limit` when given (past it,
    /// dropped with `timeout`): a caller's deadline must leave time to send.
    func resolve(_ url: String?, waitingAtMost limit: Duration?) async -> AvatarState
    /// The answer if it is known without waiting (no network), else nil.
    func resolveWithoutWaiting(_ url: String?) -> AvatarState?
}

extension AvatarResolver: AvatarResolving {}

extension AvatarResolving {
    /// The avatar to forward, waiting as long as the resolver's own timeout.
    public func resolve(_ url: String?) async -> AvatarState {
        await resolve(url, waitingAtMost: nil)
    }
}
