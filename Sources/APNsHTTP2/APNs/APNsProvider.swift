public import HTTP2Client
public import PayloadBuilder

/// APNs's part of `ProviderClient`: the provider token, how an answer
/// reads (`APNsOutcome`), and what a provider-token rejection calls for.
public struct APNsProvider: PushProvider {
    private let tokens: any ProviderTokenSource
    /// The clock for provider tokens and `Retry-After` dates, in epoch seconds.
    private let now: @Sendable () -> Int64

    public init(tokens: any ProviderTokenSource, now: @escaping @Sendable () -> Int64) {
        self.tokens = tokens
        self.now = now
    }

    public var authorizationScheme: String { "bearer" }

    /// A provider token is signed here when one is due: never waited for.
    public func credentialWithoutWaiting() -> Result<String, TransportError>? {
        providerToken()
    }

    public func credential(before deadline: ContinuousClock.Instant) async -> Result<String, TransportError> {
        providerToken()
    }

    private func providerToken() -> Result<String, TransportError> {
        do throws(ProviderTokenError) {
            return .success(try tokens.token(now: now()))
        } catch {
            return .failure(TransportError(.credentials, "cannot make an APNs provider token: \(error)"))
        }
    }

    public func outcome(of response: HTTP2Response, to requests: [ProviderRequest], at index: Int) -> APNsOutcome {
        // The request is read only when the answer lacks its apns-id.
        let apnsID = response.header("apns-id") ?? Self.apnsID(in: requests[index].headers)
        if response.status == 200 { return .accepted(apnsID: apnsID ?? "") }
        return .rejected(APNsRejection(response: response, apnsID: apnsID, now: now()))
    }

    public func refusesCredential(_ outcome: APNsOutcome) -> Bool {
        guard case let .rejected(rejection) = outcome else { return false }
        return rejection.isAboutTheProviderToken
    }

    /// Asks the token source about each rejection: those it mints (or has)
    /// a newer token for are sent again with it; those it judges a
    /// configuration problem say what to check; the others stand.
    public func renew(_ credential: String, refusals: [APNsOutcome],
                      before deadline: ContinuousClock.Instant) async -> CredentialRenewal<APNsOutcome> {
        var fresh: String?
        let results = refusals.map { outcome -> Result<APNsOutcome, TransportError>? in
            guard case let .rejected(rejection) = outcome else { return .success(outcome) }
            switch tokens.tokenWasRejected(credential, reason: rejection.reason, now: now()) {
            case let .retryWithNewToken(token):
                fresh = token
                return nil
            case .retryWithCurrentToken, .notATokenProblem:
                return .success(outcome)
            case let .doNotRetry(problem):
                var final = rejection
                final.verdict = .configuration(detail: problem.description)
                return .success(.rejected(final))
            }
        }
        return CredentialRenewal(fresh: fresh, results: results)
    }

    /// PROTOCOLS.md A5: retry `UnrelatedKeyIdInToken` and `IdleTimeout` on
    /// a new connection, and use a new connection after `Shutdown`; and
    /// after `TooManyProviderTokenUpdates` (see below).
    ///
    /// Only the body's reason is read (on the loop thread, for every non-200
    /// answer): the reasons that ask for it come from Apple's table alone, never
    /// from the fallback on the status, so an answer without a reason never does.
    static let asksForANewConnection: @Sendable (HTTP2Response) -> Bool = { response in
        guard let reason = APNsRejection.Body(response.body).reason else { return false }
        // TooManyProviderTokenUpdates: the connection took up the shared token
        // shortly before it was replaced (APNs counts updates per connection,
        // PROTOCOLS.md A4); a fresh connection takes the new one as its first.
        return reason == APNsReason.unrelatedKeyIDInToken.rawValue || reason == APNsReason.idleTimeout.rawValue
            || reason == APNsReason.shutdown.rawValue || reason == APNsReason.tooManyProviderTokenUpdates.rawValue
    }

    /// The first `apns-id` header's value; names of another length are passed
    /// over without a string comparison.
    static func apnsID(in headers: [HTTPHeader]) -> String? {
        HTTP2Response.value(of: "apns-id", in: headers)
    }
}
