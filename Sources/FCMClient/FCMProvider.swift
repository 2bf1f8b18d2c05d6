public import HTTP2Client
public import PayloadBuilder

/// FCM's part of `ProviderClient`: the OAuth access token, how an answer
/// reads (`FCMOutcome`), and renewing a refused access token.
public struct FCMProvider: PushProvider {
    /// The project messages are sent for.
    public let projectID: String
    private let tokens: any AccessTokenSource
    /// The clock in epoch seconds, for `Retry-After` dates.
    private let now: @Sendable () -> Int64

    public init(projectID: String, tokens: any AccessTokenSource, now: @escaping @Sendable () -> Int64) {
        self.projectID = projectID
        self.tokens = tokens
        self.now = now
    }

    public var authorizationScheme: String { "Bearer" }

    /// A cached access token; nil when one must be granted first.
    public func credentialWithoutWaiting() -> Result<String, TransportError>? {
        tokens.accessTokenWithoutWaiting().map { .success($0) }
    }

    /// An access token, or `accessTokenUnavailable` once `deadline` passes
    /// (the grant goes on, for later sends).
    public func credential(before deadline: ContinuousClock.Instant) async -> Result<String, TransportError> {
        let tokens = tokens
        return await firstBeforeDeadline(deadline, {
            do throws(AccessTokenError) {
                return .success(try await tokens.accessToken())
            } catch {
                return .failure(TransportError(accessToken: error))
            }
        }, orElse: { .failure(TransportError(.accessTokenUnavailable, "no FCM access token before the request's deadline")) })
    }

    /// The access token goes in the connection's `authorization` field: an
    /// HPACK literal never indexed (a credential), and no per-request copy
    /// of the rendered header list. Read in place as rendered, unless one
    /// carries an `authorization` header of its own: the requests then go
    /// without it.
    public func httpRequests(_ requests: [ProviderRequest], authorization: String, timeout: Duration) -> HTTP2Requests {
        guard requests.contains(where: { $0.headers.contains { $0.name == "authorization" } }) else {
            return HTTP2Requests(rendered: requests, authorization: authorization, timeout: timeout)
        }
        return HTTP2Requests(requests.map { request in
            HTTP2Request(method: "POST", path: request.path, authorization: authorization,
                         headers: request.headers.filter { $0.name != "authorization" }, body: Array(request.body),
                         timeout: timeout)
        })
    }

    public func outcome(of response: HTTP2Response, to requests: [ProviderRequest], at index: Int) -> FCMOutcome {
        guard response.status == 200 else {
            return .rejected(FCMRejection(status: response.status, body: response.body,
                                          retryAfterHeader: response.header("retry-after"), now: now()))
        }
        return .accepted(name: Self.messageName(response.body))
    }

    public func refusesCredential(_ outcome: FCMOutcome) -> Bool {
        if case let .rejected(rejection) = outcome { return rejection.isAboutTheAccessToken }
        return false
    }

    /// Invalidates the refused token and takes a fresh one (one grant,
    /// shared). A token fetched to replace a refused one that is refused
    /// too is not replaced again: the cause is a permission or a disabled
    /// API, which no new token fixes, and the refusals stand.
    public func renew(_ refused: String, refusals: [FCMOutcome],
                      before deadline: ContinuousClock.Instant) async -> CredentialRenewal<FCMOutcome> {
        guard tokens.invalidate(refused) else {
            return CredentialRenewal(fresh: nil, results: refusals.map { .success($0) })
        }
        switch await credential(before: deadline) {
        case let .success(fresh):
            return CredentialRenewal(fresh: fresh, results: refusals.map { _ in nil })
        case let .failure(error):
            return CredentialRenewal(fresh: nil, results: refusals.map { _ in .failure(error) })
        }
    }

    /// `name` of `{"name":"projects/…/messages/…"}`; empty when absent.
    static func messageName(_ body: [UInt8]) -> String {
        if let name = plainMessageName(body) { return name }
        if let document = try? JSONParser.parse(body), case .string(let name)? = document["name"] { return name }
        return ""
    }

    /// The answer FCM gives to almost every send, `{"name": "<plain ASCII>"}`
    /// with any whitespace, read without building a JSON tree; nil for
    /// anything else (more members, escapes, not an object), which the full
    /// parser then reads.
    static func plainMessageName(_ body: [UInt8]) -> String? {
        let bytes = body.span
        var index = 0
        func skipBlanks() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                index += 1
            }
        }
        func take(_ expected: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == expected else { return false }
            index += 1
            return true
        }
        func takeName() -> Bool {
            let key = Self.nameKey.span
            guard index + key.count <= bytes.count else { return false }
            for offset in 0..<key.count where bytes[index + offset] != key[offset] { return false }
            index += key.count
            return true
        }
        skipBlanks()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipBlanks()
        guard takeName() else { return nil }
        skipBlanks()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipBlanks()
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != 0x22 {
            // Escapes, control characters and non-ASCII: leave them to the parser.
            if bytes[index] == 0x5C || bytes[index] < 0x20 || bytes[index] >= 0x80 { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let name = String(decoding: body[start..<index], as: UTF8.self)
        index += 1
        skipBlanks()
        guard take(UInt8(ascii: "}")) else { return nil }
        skipBlanks()
        return index == bytes.count ? name : nil
    }

    /// `"name"`, the key `plainMessageName` reads.
    private static let nameKey: [UInt8] = Array("\"name\"".utf8)
}
