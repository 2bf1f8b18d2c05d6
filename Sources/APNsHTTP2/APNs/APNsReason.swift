public import HTTP2Client
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

extension APNsReason {
    /// The verdict for this reason at `status`, per Apple's table
    /// (PROTOCOLS.md A5). A dead token's `since` is the answer's to give.
    public func verdict(status: Int) -> ProviderVerdict {
        Self.verdicts[rawValue] ?? Self.verdictForUnlistedReason(status: status)
    }

    /// The verdict for a reason not in Apple's table: decided by the status.
    static func verdictForUnlistedReason(status: Int) -> ProviderVerdict {
        switch status {
        case 410: return .dropToken(since: nil)
        case 429, 500...599: return .retry(after: nil)
        case 403: return .configuration(detail: nil)
        default: return .final
        }
    }

    /// Apple's table, looked up by one hash rather than a string comparison
    /// per known reason. `IdleTimeout` and `UnrelatedKeyIdInToken` are
    /// retried (the pool retires the connection that answered them, see
    /// `APNsClient.asksForANewConnection`); a request the gateway built
    /// wrong is final, as a payload too large is.
    private static let verdicts: [String: ProviderVerdict] = {
        let table: [(ProviderVerdict, [APNsReason])] = [
            (.dropToken(since: nil), [.badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered]),
            (.refreshCredential, [.expiredProviderToken]),
            (.retry(after: nil), [.unrelatedKeyIDInToken, .idleTimeout, .tooManyProviderTokenUpdates, .tooManyRequests,
                                  .internalServerError, .serviceUnavailable, .shutdown]),
            (.configuration(detail: nil), [.topicDisallowed, .badCertificate, .badCertificateEnvironment, .invalidProviderToken,
                                           .missingProviderToken, .badEnvironmentKeyIDInToken]),
            (.final, [.badCollapseID, .badExpirationDate, .badMessageID, .badPriority, .badTopic, .duplicateHeaders,
                      .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .badPath, .methodNotAllowed,
                      .forbidden, .payloadTooLarge]),
        ]
        var verdicts: [String: ProviderVerdict] = [:]
        for (verdict, reasons) in table {
            for reason in reasons { verdicts[reason.rawValue] = verdict }
        }
        return verdicts
    }()
}
