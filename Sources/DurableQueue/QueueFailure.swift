/// Why a queue call failed. Never holds a secret (no URL password, no payload).
public struct QueueFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// An open set of reasons.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The queue holds its maximum of messages: nothing was added. Retryable.
        public static let full = Kind("full")
        /// The store could not be reached, or did not answer in time. Retryable.
        public static let unavailable = Kind("unavailable")
        /// The store answered with an error the same call would meet again.
        public static let refused = Kind("refused")
        /// The store's answer was not what the queue wrote.
        public static let malformed = Kind("malformed")
    }

    public let kind: Kind
    public let detail: String
    /// Trying again later may work, with no change of configuration.
    public let isRetryable: Bool

    public init(_ kind: Kind, _ detail: String, retryable: Bool? = nil) {
        self.kind = kind
        self.detail = detail
        isRetryable = retryable ?? (kind == .full || kind == .unavailable)
    }

    public var description: String { "\(kind): \(detail)" }
}
