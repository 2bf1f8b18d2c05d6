/// A request that passed every check: what the simulator accepts and records.
struct ValidatedNotification {
    let deviceToken: String
    let apnsID: String
    let apnsIDWasSent: Bool
    let topic: String
    let pushType: String?
    let priority: Int
    let expiration: Int64?
    let collapseID: String?
    let payload: [UInt8]
    let neverIndexedHeaders: Set<String>
}

/// The result of validating one request.
enum RequestVerdict {
    /// Valid; answer per the token's script or 200.
    case valid(ValidatedNotification)
    /// Invalid; answer `response` with `apnsID` (echoed or generated).
    case rejected(APNsSimulatorResponse, apnsID: String)
}
