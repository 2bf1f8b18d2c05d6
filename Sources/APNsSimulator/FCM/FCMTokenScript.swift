/// The scripted answers for one registration token: a queue used up one
/// valid request at a time, then an answer for every later request (or 200).
struct FCMTokenScript: Sendable {
    var queue: [FCMSimulatorResponse]
    var thereafter: FCMSimulatorResponse?

    mutating func next() -> (response: FCMSimulatorResponse, exhausted: Bool) {
        if !queue.isEmpty {
            let response = queue.removeFirst()
            return (response, queue.isEmpty && thereafter == nil)
        }
        return (thereafter ?? .success, thereafter == nil)
    }
}
