import RedisClient

extension DedupStoreFailure {
    /// A Redis client's failure as the dedup store reports it: no reply by
    /// the deadline is `timedOut`; a connection down, lost, never made or
    /// too many commands waiting is `unreachable`; an answer (an error
    /// reply, a refused login or certificate, bytes that are not RESP) is
    /// `refused`. The detail names the server, never the password.
    init(_ error: RedisError) {
        let kind: Kind = switch error.kind {
        case .timeout: .timedOut
        case .notConnected, .connectFailed, .connectionLost, .shutdown, .overloaded: .unreachable
        default: .refused
        }
        self.init(kind, error.description)
    }
}
