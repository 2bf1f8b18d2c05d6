import Glibc

/// The accept thread's body: waits on the listening socket and the stop
/// pipe, starts one thread per accepted connection (up to the configured
/// bound; more are closed at once), and reaps finished connection threads.
struct AcceptLoop: Sendable {
    let service: any HTTP2Service
    /// The simulator's TLS context, shared by every connection.
    let context: TLSServerContext
    let registry: ConnectionRegistry
    let listener: Int32
    let wake: WakeSignal

    func run() {
        while !registry.isStopping {
            var descriptors = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, 250)
            registry.reapFinished()
            if descriptors[1].revents != 0 || registry.isStopping { return }
            guard descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
            while let socket = Listener.accept(from: listener) {
                start(socket)
            }
        }
    }

    private func start(_ socket: Int32) {
        let number = service.connectionAccepted()
        guard let connectionWake = try? WakeSignal() else {
            close(socket)
            return
        }
        guard registry.register(number, wake: connectionWake) else {
            connectionWake.close()
            close(socket)
            return
        }
        let service = self.service
        let context = self.context
        let registry = self.registry
        do {
            let thread = try JoinableThread.spawn(name: "sim-connection") {
                if let connection = try? ServerConnection(
                    service: service, context: context, registry: registry, number: number, socket: socket, wake: connectionWake
                ) {
                    connection.run()
                }
                // Its slot first: a client that saw the close and reconnects
                // at once finds it free.
                registry.finish(number)
                close(socket)
            }
            registry.attach(thread, to: number)
        } catch {
            close(socket)
            registry.unregister(number)
        }
    }
}
