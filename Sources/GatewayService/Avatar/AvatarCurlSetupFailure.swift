/// A libcurl call that failed while a transfer was being set up.
struct AvatarCurlSetupFailure: Error, CustomStringConvertible {
    /// The option or call that failed.
    let call: String
    /// libcurl's message for the code.
    let message: String

    var description: String { "\(call): \(message)" }
}
