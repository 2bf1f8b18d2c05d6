#if canImport(Glibc)
import Glibc
#endif

/// Writes bytes to a file descriptor (standard error, standard output) and
/// never stops the process when it cannot: Foundation's
/// `FileHandle.write(_:)` traps on any write error, so a log reader that
/// went away (EPIPE, SIGPIPE being ignored) or a full disk (ENOSPC) would
/// turn the next log line, which an anonymous 401 can cause, into a crash.
/// Here such a line is dropped instead.
public enum FileDescriptorWriter {
    /// Writes all of `bytes`, retrying short writes and EINTR. Returns
    /// false when the descriptor refused them (the rest is dropped).
    @discardableResult
    public static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        // `write` reads the array's memory, lent for the loop of calls only.
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}
