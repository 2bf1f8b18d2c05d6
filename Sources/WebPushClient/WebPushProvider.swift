public import HTTP2Client
public import PayloadBuilder
public import WebPush

/// Web push's part of `ProviderClient`, for one push service origin: the
/// VAPID authorization (RFC 8292) as the credential, and how a push
/// service's answer reads (`WebPushOutcome`).
///
/// The credential is `t=<JWT>, k=<public key>` after the scheme `vapid`;
/// `VAPIDAuthorizer` signs one JWT per origin and reuses it for hours, so
/// a send signs nothing. A refused VAPID authorization is not renewed: the
/// JWT is ours and fresh, so a 401 or 403 means the key or the contact is
/// wrong, a configuration error.
public struct WebPushProvider: PushProvider {
    public let origin: PushServiceOrigin
    private let authorizer: VAPIDAuthorizer
    /// The clock in epoch seconds, for `Retry-After` dates.
    private let now: @Sendable () -> Int64

    public init(origin: PushServiceOrigin, authorizer: VAPIDAuthorizer, now: @escaping @Sendable () -> Int64) {
        self.origin = origin
        self.authorizer = authorizer
        self.now = now
    }

    public var authorizationScheme: String { "vapid" }

    /// The origin's cached (or freshly signed) VAPID parameters.
    public func credentialWithoutWaiting() -> Result<String, TransportError>? {
        do throws(VAPIDError) {
            let value = try authorizer.authorization(for: origin)
            return .success(String(value.dropFirst(Self.schemePrefix.count)))
        } catch {
            return .failure(TransportError(.credentials, "VAPID signing failed: \(error)"))
        }
    }

    public func credential(before deadline: ContinuousClock.Instant) async -> Result<String, TransportError> {
        credentialWithoutWaiting()!
    }

    public func outcome(of response: HTTP2Response, to requests: [ProviderRequest], at index: Int) -> WebPushOutcome {
        switch response.status {
        case 200, 201, 202:
            return .accepted(location: response.header("location") ?? "")
        default:
            let retryAfter = response.header("retry-after").flatMap { RetryAfter.duration($0, now: now()) }
            return .rejected(WebPushRejection(status: response.status, retryAfter: retryAfter))
        }
    }

    public func refusesCredential(_ outcome: WebPushOutcome) -> Bool { false }

    public func renew(_ credential: String, refusals: [WebPushOutcome],
                      before deadline: ContinuousClock.Instant) async -> CredentialRenewal<WebPushOutcome> {
        CredentialRenewal(fresh: nil, results: refusals.map { .success($0) })
    }

    /// What `VAPIDAuthorizer.authorization(for:)` puts before the parameters.
    static let schemePrefix = "vapid "
}
