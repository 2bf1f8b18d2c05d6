import GatewayService
import PayloadBuilder

/// Forwards the avatar URL without checking it: for tests that are not
/// about avatars (the service always uses the real resolver).
struct UncheckedAvatars: AvatarResolving {
    func resolve(_ url: String?, waitingAtMost limit: Duration?) async -> AvatarState {
        AvatarState(unresolvedURL: url)
    }

    func resolveWithoutWaiting(_ url: String?) -> AvatarState? {
        AvatarState(unresolvedURL: url)
    }
}
