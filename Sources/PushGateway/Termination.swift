import Foundation

/// How the long-running commands (`serve`, `simulators`) learn that they
/// should stop: SIGTERM or SIGINT, taken by a dispatch source rather than a
/// signal handler, so no global state is involved.
enum Termination {
    /// Waits for SIGTERM or SIGINT.
    static func wait() async {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "pushgw-signals")
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        for await _ in signals { break }
        withExtendedLifetime(sources) {}
    }
}
