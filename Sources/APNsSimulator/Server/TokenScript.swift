/// A simulator answer that has a plain success (APNs 200, FCM 200 with a
/// message name): what a token with no script, or a used-up one, gets.
protocol ScriptedResponse: Sendable {
    static var success: Self { get }
}

/// The scripted answers for one device or registration token: a queue
/// used up one valid request at a time, then an answer for every later
/// request (or success). One type for both simulators.
struct TokenScript<Response: ScriptedResponse>: Sendable {
    var queue: [Response]
    var thereafter: Response?

    /// The answer for the next valid request, and whether the script is used up.
    mutating func next() -> (response: Response, exhausted: Bool) {
        if !queue.isEmpty {
            let response = queue.removeFirst()
            return (response, queue.isEmpty && thereafter == nil)
        }
        return (thereafter ?? .success, thereafter == nil)
    }
}

extension APNsSimulatorResponse: ScriptedResponse {}
extension FCMSimulatorResponse: ScriptedResponse {}
