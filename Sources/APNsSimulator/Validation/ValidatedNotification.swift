/// A request that passed every check: what the simulator accepts and records.
///
/// The texts a record needs are read from the request when asked for, so
/// the usual answer (nothing recorded, no script) builds none of them. A
/// valid request has each regular field at most once, so the first field
/// of a name is its only one.
struct ValidatedNotification {
    let request: ReceivedRequest
    let apnsID: String
    let apnsIDWasSent: Bool
    let priority: Int
    let expiration: Int64?

    /// The device token from `:path`, as sent.
    var deviceToken: String {
        String((request.value(":path") ?? "").dropFirst(RequestValidator.devicePathPrefix.count))
    }
    /// The token as scripts, registrations and counts key it.
    var tokenKey: String { deviceToken.lowercased() }
    var topic: String { request.value("apns-topic") ?? "" }
    var pushType: String? { request.value("apns-push-type") }
    var collapseID: String? { request.value("apns-collapse-id") }
    var payload: [UInt8] { request.body }
    var neverIndexedHeaders: Set<String> { Set(request.neverIndexedNames) }
    /// The provider token (JWT) from `authorization: bearer <jwt>`.
    var providerToken: String {
        let authorization = request.value("authorization") ?? ""
        guard let space = authorization.firstIndex(of: " ") else { return "" }
        return String(authorization[authorization.index(after: space)...])
    }
}

/// The result of validating one request.
enum RequestVerdict {
    /// Valid; answer per the token's script or 200.
    case valid(ValidatedNotification)
    /// Invalid; answer `response` with `apnsID` (echoed or generated).
    case rejected(APNsSimulatorResponse, apnsID: String)
}
