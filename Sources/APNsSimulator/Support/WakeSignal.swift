internal import Glibc

/// A self-pipe that wakes a thread blocked in `poll`.
///
/// `signal()` may be called from any thread; the owning thread polls
/// `readDescriptor` and calls `drain()`. The pipe stays readable until drained,
/// so a wake-up sent before the thread reaches `poll` is never lost. The
/// descriptors are closed by `close()`, called once by whoever joins the
/// thread, after the join.
struct WakeSignal: Sendable {
    /// The end to poll for `POLLIN`.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Creates a non-blocking, close-on-exec pipe.
    init() throws(APNsSimulatorError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw SystemCallFailure.error("pipe") }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    /// Makes the read end readable. Never blocks; a full pipe is already awake.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Closes both ends.
    func close() {
        _ = Glibc.close(readDescriptor)
        _ = Glibc.close(writeDescriptor)
    }
}
