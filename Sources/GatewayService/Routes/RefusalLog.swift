import GatewayHTTP
import PayloadBuilder
import PushGWSync

/// Logs the requests the gateway refuses (401, an invalid event, a body
/// too large…), at most one line per route and error code every
/// `interval`, with the number refused since that pair's last line: an operator sees a caller
/// with a wrong token or a broken event, and a flood of them writes a few
/// lines, not one per request.
///
/// A line names the route, the status, the error code, the count, and the
/// field of the request that wrote it (`last_field`: the others counted may
/// have named other fields; a field may name one of the caller's data
/// keys); never the token, the body's values or the error's message.
final class RefusalLog: Sendable {
    private let logger: Logger
    private let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Per route and error code: when its last line was written, and how many were refused since.
    private let state = Locked<[String: (last: ContinuousClock.Instant, unlogged: Int)]>([:])

    init(logger: Logger, interval: Duration = .seconds(10),
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.logger = logger
        self.interval = interval
        self.now = now
    }

    /// Notes a refused request; writes a line when its code's interval is up.
    func refused(route: String, _ response: HTTPResponse) {
        guard (400..<500).contains(response.status) else { return }
        let error = (try? JSONParser.parse(response.body))?["error"]
        guard case let .string(code)? = error?["code"] else { return }
        let instant = now()
        let key = route + " " + code
        let count: Int? = state.withLock { pairs in
            // Routes (a bounded label) and error codes are fixed sets; the dictionary stays that small.
            if let entry = pairs[key], instant - entry.last < interval {
                pairs[key] = (entry.last, entry.unlogged + 1)
                return nil
            }
            let count = (pairs[key]?.unlogged ?? 0) + 1
            pairs[key] = (instant, 0)
            return count
        }
        guard let count else { return }
        var fields = [("route", route), ("status", String(response.status)), ("code", code), ("count", String(count))]
        if case let .string(field)? = error?["field"] { fields.append(("last_field", field)) }
        logger.warning("requests refused", fields)
    }
}
