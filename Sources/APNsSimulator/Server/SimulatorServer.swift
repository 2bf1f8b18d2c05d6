import Synchronization
import Glibc
import PushGWSync

/// The listening side shared by the simulators: binds 127.0.0.1, runs the
/// accept thread and one thread per connection, each serving TLS + HTTP/2 (or HTTP/1.1)
/// for an `HTTP2Service`, and stops them all.
///
/// Lifecycle: created → running → stopped; a stopped server cannot be
/// started again. `stop()` wakes, joins and closes every thread and socket.
/// Every method is thread-safe.
final class SimulatorServer: Sendable {
    private let service: any HTTP2Service
    private let requestedPort: Int
    private let registry: ConnectionRegistry
    private let lifecycle = Locked(Lifecycle.created)

    private enum Lifecycle {
        case created
        case running(Running)
        case stopped
    }

    private struct Running {
        let listener: Int32
        let port: Int
        let acceptThread: JoinableThread
        let acceptWake: WakeSignal
    }

    /// - Parameters:
    ///   - port: the TCP port on 127.0.0.1; 0 picks an ephemeral one.
    ///   - maxConnections: more connections at once are closed on accept.
    init(service: any HTTP2Service, port: Int, maxConnections: Int) {
        self.service = service
        requestedPort = port
        registry = ConnectionRegistry(capacity: maxConnections)
    }

    deinit { stop() }

    /// Binds 127.0.0.1 and starts accepting. Throws when the port is taken,
    /// the TLS context cannot be built, or it was already started.
    func start() throws(APNsSimulatorError) {
        let context = try TLSServerContext(pki: service.pki, applicationProtocol: service.applicationProtocol)  // once, not per connection
        try lifecycle.withLock { state throws(APNsSimulatorError) in
            guard case .created = state else {
                throw APNsSimulatorError(operation: "start", detail: "the simulator was already started")
            }
            let (listener, port) = try Listener.open(port: requestedPort)
            let wake: WakeSignal
            do throws(APNsSimulatorError) {
                wake = try WakeSignal()
            } catch {
                close(listener)
                throw error
            }
            let loop = AcceptLoop(service: service, context: context, registry: registry, listener: listener, wake: wake)
            do throws(APNsSimulatorError) {
                let thread = try JoinableThread.spawn(name: "sim-accept") { loop.run() }
                state = .running(Running(listener: listener, port: port, acceptThread: thread, acceptWake: wake))
            } catch {
                wake.close()
                close(listener)
                throw error
            }
        }
    }

    /// Stops accepting, closes every connection (no GOAWAY), and joins all
    /// threads. Idempotent.
    func stop() {
        let running = lifecycle.withLock { state -> Running? in
            defer { state = .stopped }
            if case .running(let running) = state { return running }
            return nil
        }
        guard let running else { return }
        registry.beginStopping()
        running.acceptWake.signal()
        running.acceptThread.join()
        registry.joinAll()
        running.acceptWake.close()
        close(running.listener)
    }

    /// The bound port (0 until started, and after `stop()`).
    var port: Int {
        lifecycle.withLock { state in
            if case .running(let running) = state { return running.port }
            return 0
        }
    }

    /// Connections currently open.
    var openConnections: Int { registry.count }

    /// Wakes every connection thread, so each re-reads the stream limit.
    func wakeConnections() { registry.wakeAll() }
}
