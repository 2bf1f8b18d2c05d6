public import PayloadBuilder

/// What one push provider adds to `ProviderClient`: its credential, how
/// its answers read, and what it does when its credential is refused. The
/// rest (the connections, the deadline, sending, reading every answer,
/// renewing the credential once and sending the refused requests again)
/// is written once, in `ProviderClient`: a new provider is one conforming
/// type.
public protocol PushProvider: Sendable {
    /// How one answer reads: accepted, or refused with a `ProviderVerdict`.
    associatedtype Outcome: Sendable

    /// What goes before the credential in `authorization` (`bearer`, `Bearer`).
    var authorizationScheme: String { get }

    /// The credential when it needs no wait (one cached or signed now), or
    /// why there is none; nil when it must be waited for (a grant over the
    /// network).
    func credentialWithoutWaiting() -> Result<String, TransportError>?

    /// The credential, waited for at most until `deadline`.
    func credential(before deadline: ContinuousClock.Instant) async -> Result<String, TransportError>

    /// The requests as the connections send them, with `authorization` and
    /// `timeout` shared by all (by default, read in place as rendered).
    func httpRequests(_ requests: [ProviderRequest], authorization: String, timeout: Duration) -> HTTP2Requests

    /// How the answer to `requests[index]` reads.
    func outcome(of response: HTTP2Response, to requests: [ProviderRequest], at index: Int) -> Outcome

    /// Whether `outcome` refuses the credential it was sent with, so that a
    /// fresh one might be taken.
    func refusesCredential(_ outcome: Outcome) -> Bool

    /// The provider refused `credential` in each of `refusals` (all of
    /// whose `refusesCredential` is true): the credential to send them again
    /// with, once, and each one's result when it is not sent again.
    func renew(_ credential: String, refusals: [Outcome], before deadline: ContinuousClock.Instant) async -> CredentialRenewal<Outcome>
}

extension PushProvider {
    public func httpRequests(_ requests: [ProviderRequest], authorization: String, timeout: Duration) -> HTTP2Requests {
        HTTP2Requests(rendered: requests, authorization: authorization, timeout: timeout)
    }
}

/// `PushProvider.renew`'s answer.
public struct CredentialRenewal<Outcome: Sendable>: Sendable {
    /// The credential to send again with; nil: nothing is sent again.
    public var fresh: String?
    /// Per refusal: nil to send it again with `fresh`; else its result.
    public var results: [Result<Outcome, TransportError>?]

    public init(fresh: String?, results: [Result<Outcome, TransportError>?]) {
        self.fresh = fresh
        self.results = results
    }
}
