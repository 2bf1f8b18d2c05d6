/// An APNs error reason (`{"reason":"…"}`), as an open set: every reason
/// Apple documents is a static member, and an unknown one is still a value.
public struct APNsReason: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let badCollapseID = APNsReason("BadCollapseId")
    public static let badDeviceToken = APNsReason("BadDeviceToken")
    public static let badExpirationDate = APNsReason("BadExpirationDate")
    public static let badMessageID = APNsReason("BadMessageId")
    public static let badPriority = APNsReason("BadPriority")
    public static let badTopic = APNsReason("BadTopic")
    public static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason("DuplicateHeaders")
    public static let idleTimeout = APNsReason("IdleTimeout")
    public static let invalidPushType = APNsReason("InvalidPushType")
    public static let missingDeviceToken = APNsReason("MissingDeviceToken")
    public static let missingTopic = APNsReason("MissingTopic")
    public static let payloadEmpty = APNsReason("PayloadEmpty")
    public static let topicDisallowed = APNsReason("TopicDisallowed")
    public static let badCertificate = APNsReason("BadCertificate")
    public static let badCertificateEnvironment = APNsReason("BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason("ExpiredProviderToken")
    public static let forbidden = APNsReason("Forbidden")
    public static let invalidProviderToken = APNsReason("InvalidProviderToken")
    public static let missingProviderToken = APNsReason("MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNsReason("UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIDInToken = APNsReason("BadEnvironmentKeyIdInToken")
    public static let badPath = APNsReason("BadPath")
    public static let methodNotAllowed = APNsReason("MethodNotAllowed")
    public static let expiredToken = APNsReason("ExpiredToken")
    public static let unregistered = APNsReason("Unregistered")
    public static let payloadTooLarge = APNsReason("PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason("TooManyRequests")
    public static let internalServerError = APNsReason("InternalServerError")
    public static let serviceUnavailable = APNsReason("ServiceUnavailable")
    public static let shutdown = APNsReason("Shutdown")
}

/// What the gateway should do about a rejection (PROTOCOLS.md A5).
public enum APNsAction: Sendable, Equatable {
    /// The token is dead: tell the caller to delete it. Never retry.
    case dropToken
    /// Try again later (after `after` when the server said so).
    case retry(after: Duration?)
    /// Mint a new provider token, then retry once.
    case retryWithNewProviderToken
    /// Retry on a new connection.
    case retryOnNewConnection
    /// Credentials or topic are wrong: alert an operator; retrying will not help.
    case configurationError
    /// The gateway built a bad request: a bug to fix; retrying will not help.
    case gatewayBug
    /// Final for this notification (e.g. payload too large, forbidden).
    case doNotRetry

    public var isRetryable: Bool {
        switch self {
        case .retry, .retryWithNewProviderToken, .retryOnNewConnection: return true
        case .dropToken, .configurationError, .gatewayBug, .doNotRetry: return false
        }
    }
}

extension APNsReason {
    /// The action for this reason at `status`, per Apple's table.
    public func action(status: Int) -> APNsAction {
        Self.actions[rawValue] ?? Self.actionForUnlistedReason(status: status)
    }

    /// The action for a reason not in Apple's table: decided by the status.
    static func actionForUnlistedReason(status: Int) -> APNsAction {
        switch status {
        case 410: return .dropToken
        case 429, 500...599: return .retry(after: nil)
        case 403: return .configurationError
        default: return .doNotRetry
        }
    }

    /// Apple's table (PROTOCOLS.md A5), looked up by one hash rather than a
    /// string comparison per known reason.
    private static let actions: [String: APNsAction] = {
        let table: [(APNsAction, [APNsReason])] = [
            (.dropToken, [.badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered]),
            (.retryWithNewProviderToken, [.expiredProviderToken]),
            (.retryOnNewConnection, [.unrelatedKeyIDInToken, .idleTimeout]),
            (.retry(after: nil), [.tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown]),
            (.configurationError, [.topicDisallowed, .badCertificate, .badCertificateEnvironment, .invalidProviderToken,
                                   .missingProviderToken, .badEnvironmentKeyIDInToken]),
            (.gatewayBug, [.badCollapseID, .badExpirationDate, .badMessageID, .badPriority, .badTopic, .duplicateHeaders,
                           .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .badPath, .methodNotAllowed]),
            (.doNotRetry, [.forbidden, .payloadTooLarge]),
        ]
        var actions: [String: APNsAction] = [:]
        for (action, reasons) in table {
            for reason in reasons { actions[reason.rawValue] = action }
        }
        return actions
    }()
}
