/// A problem that stops the service from starting or serving: which setting
/// (or resource) is wrong and how to fix it. Never carries a secret.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let setting: String
    public let message: String

    public init(setting: String, _ message: String) {
        self.setting = setting
        self.message = message
    }

    public var description: String { "\(setting): \(message)" }
}
