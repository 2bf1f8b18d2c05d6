import Foundation
import Synchronization

/// How the long-running commands (`serve`, `simulators`) learn that they
/// should stop: SIGTERM, SIGINT or SIGHUP, taken by dispatch sources rather
/// than signal handlers, so no global state is involved.
///
/// The first signal starts the graceful stop. A second one, while that
/// stop drains, means the operator will not wait (a second Ctrl-C, or a
/// supervisor's repeated SIGTERM): the process ends at once. SIGHUP (the
/// terminal or the supervisor went away; there is no configuration to
/// reload) stops gracefully like SIGTERM instead of killing the process.
enum Termination {
    /// The signals that stop the process.
    static let signals = [SIGTERM, SIGINT, SIGHUP]

    /// Watches the signals until it is released: keep it until the
    /// process exits, so that a second signal is still heard.
    final class Watch {
        private let sources: [any DispatchSourceSignal]

        fileprivate init(sources: [any DispatchSourceSignal]) {
            self.sources = sources
        }

        deinit {
            for source in sources { source.cancel() }
        }
    }

    /// Waits for the first signal; a later one calls `onRepeat` with its
    /// number (it should end the process without waiting).
    static func wait(onRepeat: @escaping @Sendable (Int32) -> Void) async -> Watch {
        for number in signals { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "pushgw-signals")
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let received = Atomic<Int>(0)
        let sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
                    continuation.yield(number)
                } else {
                    onRepeat(number)
                }
            }
            source.resume()
            return source
        }
        for await _ in stream { break }
        return Watch(sources: sources)
    }

    /// Ends the process now, after `message` on standard error: what a
    /// repeated signal does.
    static func exitNow(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fflush(nil)
        _exit(1)
    }
}
