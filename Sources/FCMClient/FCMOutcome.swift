public import HTTP2Client
/// How FCM answered one message. A rejection is a value (the token may be
/// dead, the message may be wrong); a transport failure is a
/// `TransportError` instead.
public enum FCMOutcome: Sendable, Equatable {
    /// 200: FCM took the message; `name` is `projects/{p}/messages/{id}`.
    case accepted(name: String)
    case rejected(FCMRejection)

    /// True when the caller must delete the registration token.
    public var dropsToken: Bool {
        if case .rejected(let rejection) = self { return rejection.dropsToken }
        return false
    }
}
