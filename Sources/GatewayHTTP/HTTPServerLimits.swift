// HTTPServerLimits: the bounds the ingest server puts on its clients.

import Foundation

/// Bounds the server puts on clients, so a slow or hostile client cannot
/// hold more than its share.
public struct HTTPServerLimits: Sendable {
    /// Largest request body; more is answered by the handler as too large.
    public var maximumBodyBytes = 64 * 1024
    /// Per-connection memory for headers and buffers (caps header size).
    /// libmicrohttpd zeroes it between requests, so it is kept small: 16 KiB
    /// against 32 cut /healthz CPU per request by 7–16% (A/B runs).
    public var connectionMemory = 16 * 1024
    public var maximumConnections = 1024
    /// Most connections one client address may hold (0: no limit of its
    /// own), so that one client cannot take every slot. Enforced by each
    /// event loop's daemon for its share, as `maximumConnections` is.
    public var maximumConnectionsPerAddress = 0
    /// Idle seconds before a connection is closed. Every byte received
    /// resets it, so it does not stop a client that trickles bytes.
    public var connectionTimeoutSeconds = 15
    /// A request's headers and body must arrive within this time, counted
    /// from the connection's opening or the end of the previous response;
    /// a connection that takes longer (slowloris, a body that never ends)
    /// is cut. The handler's own time is not counted.
    public var requestTimeout: Duration = .seconds(10)
    /// Event loops (a thread and a libmicrohttpd daemon each) the server
    /// starts when it is given none; defaults to the number of cores.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}
}
