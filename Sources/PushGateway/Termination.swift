import Foundation
import GatewayService
import Synchronization

/// How the long-running commands (`serve`, `simulators`) learn that they
/// should stop: SIGTERM, SIGINT or SIGHUP, taken by dispatch sources rather
/// than signal handlers, so no global state is involved.
///
/// The first signal starts the graceful stop. A second one, while that
/// stop drains, means the operator will not wait (a second Ctrl-C, or a
/// supervisor's repeated SIGTERM): `onRepeat` ends the process at once.
/// SIGHUP (the terminal or the supervisor went away; there is no
/// configuration to reload) stops gracefully like SIGTERM, unless the
/// process was started with SIGHUP ignored (`nohup`): then it stays ignored.
///
/// Create the watch before starting anything that a signal should stop
/// gracefully: from then on no signal takes the default action (death
/// without a drain).
final class Termination {
    private let sources: [any DispatchSourceSignal]
    private let signals: AsyncStream<Int32>

    init(onRepeat: @escaping @Sendable (Int32) -> Void) {
        var numbers = [SIGTERM, SIGINT]
        // signal() returns the disposition it replaces: SIG_IGN means nohup.
        let inheritedHangUp = signal(SIGHUP, SIG_IGN)
        if Self.isIgnore(inheritedHangUp) == false { numbers.append(SIGHUP) }
        for number in numbers { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "pushgw-signals")
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let received = Atomic<Int>(0)
        sources = numbers.map { number in
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
        signals = stream
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Returns once the first signal has arrived (at once if it already has).
    func first() async {
        for await _ in signals { break }
    }

    /// Ends the process now, after `message` on standard error: what a
    /// repeated signal does.
    static func exitNow(_ message: String) -> Never {
        FileDescriptorWriter.write(Array((message + "\n").utf8), to: STDERR_FILENO)
        fflush(nil)
        _exit(1)
    }

    /// Whether a disposition `signal()` returned is SIG_IGN (compared as addresses: C function pointers).
    private static func isIgnore(_ handler: sighandler_t?) -> Bool {
        guard let handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
