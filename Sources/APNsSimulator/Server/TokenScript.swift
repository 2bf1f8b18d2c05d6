/// The scripted answers for one device token: a queue used up one valid
/// request at a time, then an answer for every later request (or 200).
struct TokenScript: Sendable {
    var queue: [APNsSimulatorResponse]
    var thereafter: APNsSimulatorResponse?

    /// The answer for the next valid request, and whether the script is used up.
    mutating func next() -> (response: APNsSimulatorResponse, exhausted: Bool) {
        if !queue.isEmpty {
            let response = queue.removeFirst()
            return (response, queue.isEmpty && thereafter == nil)
        }
        return (thereafter ?? .success, thereafter == nil)
    }
}
