import Glibc

/// Why a file could not be read: errno in words (`no such file`,
/// `permission denied`, `is a directory`), never the file's contents.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public static let noSuchFile = FileReadError("no such file")
    public static let permissionDenied = FileReadError("permission denied")
    public static let isADirectory = FileReadError("is a directory")

    /// The words for an errno value of `open` or `read`.
    public init(errno code: Int32) {
        switch code {
        case ENOENT: self = .noSuchFile
        case EACCES, EPERM: self = .permissionDenied
        case EISDIR: self = .isADirectory
        case ENOTDIR: self.init("a folder in the path is not a folder")
        case ELOOP: self.init("too many symbolic links")
        case ENAMETOOLONG: self.init("the path is too long")
        default: self.init(String(cString: strerror(code)).lowercased())
        }
    }

    public var description: String { reason }
}

/// Reads a whole configuration or secret file with `open`/`read`, so that a
/// failure says why (FileManager's `contents(atPath:)` loses errno).
public enum FileReader {
    /// The most a setting's file may hold: configuration, keys and token
    /// lists are small; this stops `/dev/zero` or a log file by mistake.
    public static let maximumBytes = 4 * 1024 * 1024

    /// `~/` at the start of `path` is the home folder, as in a shell.
    public static func read(_ path: String) throws(FileReadError) -> [UInt8] {
        var path = path
        if path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            path = home + path.dropFirst()
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError(errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { throw .isADirectory }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // `read` fills the chunk's memory, lent for the call only.
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError(errno: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > maximumBytes { throw FileReadError("larger than \(maximumBytes / 1024 / 1024) MB: not a settings file") }
        }
    }
}
