/// Answers the requests of one connection to the FCM simulator:
///
/// - `POST /token`: the OAuth 2.0 JWT-bearer grant (`OAuthGrantVerifier`),
///   answered `{"access_token","expires_in","token_type":"Bearer"}` or 400
///   `{"error","error_description"}`; 503 while the endpoint is set down.
/// - `POST /v1/projects/{project}/messages:send`: the bearer access token
///   (401 UNAUTHENTICATED without FcmError when missing, unknown or
///   expired), the project (403 PERMISSION_DENIED), a `content-type` of
///   `application/json` (B1; parameters such as `charset` allowed; else 400
///   INVALID_ARGUMENT without FcmError, `GoogleError.unsupportedContentType`), the JSON body
///   (`FCMSendScanner`), FCM's own checks (`FCMMessageValidator`), then
///   the token's script or success `{"name":"projects/{p}/messages/0:…"}`.
/// - Anything else: 404 NOT_FOUND.
///
/// Thread-confined to its connection's thread.
final class FCMRequestHandler: HTTP2RequestHandler {
    private let core: FCMSimulatorCore
    private var grants: OAuthGrantVerifier
    /// `{"name":"projects/{project}/messages/`, escaped: every success body
    /// starts so, then the id and `"}`.
    private let successBodyPrefix: [UInt8]

    init(core: FCMSimulatorCore) {
        self.core = core
        grants = OAuthGrantVerifier(configuration: core.configuration)
        let quotedStem = JSONText.quoted("projects/\(core.configuration.projectID)/messages/")
        successBodyPrefix = Array(#"{"name":"#.utf8) + Array(quotedStem.utf8.dropLast())
    }

    func streamLimit(serviceLimit: Int) -> Int { serviceLimit }

    func answer(_ request: ReceivedRequest, streamID: Int32) -> HTTP2Answer {
        let method = request.value(":method") ?? ""
        let path = request.value(":path") ?? ""
        let route = Self.route(of: path)
        if method == "POST", route == FCMSimulatorCore.tokenPath {
            return tokenGrant(request)
        }
        if method == "POST", let project = Self.sendProject(route) {
            return send(request, project: project)
        }
        let error = GoogleError.notFound(path: route)
        core.recordRejection(error)
        return error.answer
    }

    /// `path` up to its first `?` (Characters compared; for ASCII, the
    /// same as comparing bytes, which is cheaper).
    static func route(of path: String) -> String {
        var path = path
        let ascii: (cut: Int, count: Int)? = path.withUTF8 { bytes in
            guard TextBytes.isASCII(bytes) else { return nil }
            return (bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count, bytes.count)
        }
        guard let ascii else { return String(path[..<(path.firstIndex(of: "?") ?? path.endIndex)]) }
        if ascii.cut == ascii.count { return path }
        return path.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[..<ascii.cut]), as: UTF8.self) }
    }

    /// The project of `/v1/projects/{project}/messages:send`, if `path` is
    /// one (Characters compared; for ASCII, the same as comparing bytes).
    static func sendProject(_ path: String) -> String? {
        let prefix = "/v1/projects/"
        let suffix = "/messages:send"
        var path = path
        let ascii: String?? = path.withUTF8 { bytes in
            guard TextBytes.isASCII(bytes) else { return nil }  // not settled here
            func spells(_ part: Slice<UnsafeBufferPointer<UInt8>>, _ text: String) -> Bool {
                var text = text
                return text.withUTF8 { TextBytes.equal(UnsafeBufferPointer(rebasing: part), $0) }
            }
            guard bytes.count > prefix.utf8.count + suffix.utf8.count, spells(bytes[..<prefix.utf8.count], prefix),
                  spells(bytes[(bytes.count - suffix.utf8.count)...], suffix) else { return .some(nil) }
            let project = UnsafeBufferPointer(rebasing: bytes[prefix.utf8.count..<bytes.count - suffix.utf8.count])
            return project.contains(UInt8(ascii: "/")) ? .some(nil) : String(decoding: project, as: UTF8.self)
        }
        if let ascii { return ascii }
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else { return nil }
        let project = path.dropFirst(prefix.count).dropLast(suffix.count)
        return project.contains("/") ? nil : String(project)
    }

    // MARK: Token endpoint

    private func tokenGrant(_ request: ReceivedRequest) -> HTTP2Answer {
        if let outage = core.tokenEndpointOutage() {
            var headers = Self.jsonHeaders
            if let retryAfter = outage.retryAfter { headers.append(("retry-after", String(retryAfter))) }
            let body = JSONText.object([("error", JSONText.quoted("temporarily_unavailable")),
                                        ("error_description", JSONText.quoted("The service is currently unavailable."))])
            return HTTP2Answer(status: 503, headers: headers, body: Array(body.utf8))
        }
        let now = core.configuration.clock()
        switch grants.verify(form: request.body, tokenURI: core.tokenURI, now: now) {
        case .failure(let refusal):
            core.recordGrantRefused(refusal.error)
            let body = JSONText.object([("error", JSONText.quoted(refusal.error)),
                                        ("error_description", JSONText.quoted(refusal.description))])
            return HTTP2Answer(status: 400, headers: Self.jsonHeaders, body: Array(body.utf8))
        case .success:
            let issued = core.issueAccessToken(now: now)
            let body = JSONText.object([("access_token", JSONText.quoted(issued.token)),
                                        ("expires_in", String(issued.expiresIn)),
                                        ("token_type", JSONText.quoted("Bearer"))])
            return HTTP2Answer(status: 200, headers: Self.jsonHeaders + [("cache-control", "no-cache, no-store, max-age=0, must-revalidate")],
                               body: Array(body.utf8))
        }
    }

    /// Whether the media type of `contentType` is `application/json` (ASCII
    /// case-insensitive, parameters after `;` ignored).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        let trimmed = mediaType.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        return trimmed.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }.elementsEqual("application/json".utf8)
    }

    private static let jsonHeaders: [(name: String, value: String)] = [("content-type", "application/json; charset=utf-8")]
    private static let successHeaders: [(name: String, value: String)] = [("content-type", "application/json; charset=UTF-8")]

    // MARK: messages:send

    private func send(_ request: ReceivedRequest, project: String) -> HTTP2Answer {
        let result = checkedMessage(request, project: project)
            .flatMap { message in core.answer(for: message, body: request.body) }
        switch result {
        case .success(let name):
            // JSONText.object([("name", JSONText.quoted(name.text(project:)))]), written as bytes.
            var body = successBodyPrefix
            body.reserveCapacity(successBodyPrefix.count + 48)
            name.appendID(to: &body)
            body.append(contentsOf: #""}"#.utf8)
            return HTTP2Answer(status: 200, headers: Self.successHeaders, body: body)
        case .failure(let error):
            return error.answer
        }
    }

    /// Every check before the script: authentication, project, JSON, FCM's rules.
    /// A failure is recorded here.
    private func checkedMessage(_ request: ReceivedRequest, project: String) -> Result<FCMMessageValidator.ValidMessage, GoogleError> {
        let result = validate(request, project: project)
        if case .failure(let error) = result { core.recordRejection(error) }
        return result
    }

    private func validate(_ request: ReceivedRequest, project: String) -> Result<FCMMessageValidator.ValidMessage, GoogleError> {
        guard let authorization = request.value("authorization"), !authorization.isEmpty else {
            return .failure(.unauthenticated(missing: true))
        }
        guard let space = authorization.firstIndex(of: " "), authorization[..<space].lowercased() == "bearer",
              core.isValidAccessToken(String(authorization[authorization.index(after: space)...]),
                                      now: core.configuration.clock()) else {
            return .failure(.unauthenticated(missing: false))
        }
        guard project == core.configuration.projectID || project == core.configuration.projectNumber else {
            return .failure(.permissionDenied(project: project))
        }
        guard Self.isJSON(request.value("content-type")) else {
            return .failure(.unsupportedContentType(request.value("content-type")))
        }
        guard request.bodyLength <= ReceivedRequest.bodyLimit else { return .failure(.unexpectedToken) }
        return FCMSendScanner.check(request.body)
    }
}
