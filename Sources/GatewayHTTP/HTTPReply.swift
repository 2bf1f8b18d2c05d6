// HTTPReply: a request's later answer, from any thread, which resumes its
// suspended connection; and the connection handle it carries.

internal import CMicroHTTPD
import PushGWSync

/// A C handle that crosses from the thread running its daemon to whoever answers.
///
/// `@unchecked Sendable`: `HTTPReply` uses it for exactly one call,
/// `MHD_resume_connection`, which libmicrohttpd allows from any thread on a
/// suspended connection; the connection cannot be freed while suspended.
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// How a handler answers a request from any thread, later: the connection
/// waits suspended (holding no thread) until `send` resumes it.
public final class HTTPReply: Sendable {
    private let connection: SuspendedConnection
    private let state: RequestState
    private let server: HTTPServer

    /// The request's path, to count a 503 the server gives it when stopping.
    private let path: String

    init(connection: SuspendedConnection, state: RequestState, server: HTTPServer, path: String) {
        self.connection = connection
        self.state = state
        self.server = server
        self.path = path
    }

    /// Answers the request; only the first answer counts. Returns whether
    /// this answer is the one the client gets (false when the server,
    /// stopping, answered first): count it only then.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Bool {
        guard answer(response) else { return false }
        server.suspended.answered(self) { MHD_resume_connection(connection.pointer) }
        return true
    }

    /// The server is stopping and has taken this request from the waiting
    /// ones: its connection is resumed here, with the handler's answer if
    /// it came first, else with `response`. Whatever `send` does meanwhile
    /// resumes nothing, so the connection is resumed exactly once, before
    /// the daemon stops.
    func resumeForStop(_ response: HTTPResponse) {
        if answer(response) { server.handler.answered(path: path, response) }
        MHD_resume_connection(connection.pointer)
    }

    /// Stores the answer unless one is stored already; true when stored.
    private func answer(_ response: HTTPResponse) -> Bool {
        state.response.withLock { stored in
            guard stored == nil else { return false }
            stored = response
            return true
        }
    }
}
