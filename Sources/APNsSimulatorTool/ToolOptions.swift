import Glibc

/// The command line of `apns-simulator`.
struct ToolOptions {
    var port = 0
    var teamID: String?
    var keyID: String?
    var publicKeyPath: String?
    var topics: [String] = []
    var caOutputPath: String?
    var maxStreams = 1000
    var limitStreamsUntilAuthenticated = true

    static let usage = """
        usage: apns-simulator --team-id TEAM --key-id KEY --public-key FILE --topic TOPIC [--topic TOPIC ...]
                              [--port P] [--ca-out FILE] [--max-streams N] [--no-limit-streams-until-auth]

        A strict APNs provider-API simulator on https://127.0.0.1:P (HTTP/2, TLS, ALPN h2).
          --port P              TCP port on 127.0.0.1; 0 (default) picks a free one
          --team-id TEAM        the Team ID every JWT's iss must equal
          --key-id KEY          the Key ID (JWT kid) of --public-key
          --public-key FILE     the P-256 public key (PEM), or the .p8 private key itself
          --topic TOPIC         an allowed bundle ID (repeatable)
          --ca-out FILE         where to write the throwaway CA certificate (default: a file in /tmp)
          --max-streams N       SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)
          --no-limit-streams-until-auth
                                advertise --max-streams from the start, instead of 1 stream
                                until a valid JWT arrives as Apple does (the default)
        Runs until SIGINT or SIGTERM.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(ToolError) -> ToolOptions {
        var options = ToolOptions()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws(ToolError) -> String {
            guard let value = iterator.next() else { throw ToolError("\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) throws(ToolError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), number >= 0 else { throw ToolError("\(flag) needs a non-negative number, not \(text)") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--port": options.port = try number(argument)
            case "--team-id": options.teamID = try value(argument)
            case "--key-id": options.keyID = try value(argument)
            case "--public-key": options.publicKeyPath = try value(argument)
            case "--topic": options.topics.append(try value(argument))
            case "--ca-out": options.caOutputPath = try value(argument)
            case "--max-streams": options.maxStreams = try number(argument)
            case "--limit-streams-until-auth": options.limitStreamsUntilAuthenticated = true  // the default; kept for old scripts
            case "--no-limit-streams-until-auth": options.limitStreamsUntilAuthenticated = false
            case "--help", "-h": throw ToolError(nil)
            default: throw ToolError("unknown argument \(argument)")
            }
        }
        guard options.teamID != nil, options.keyID != nil, options.publicKeyPath != nil, !options.topics.isEmpty else {
            throw ToolError("--team-id, --key-id, --public-key and at least one --topic are required")
        }
        return options
    }
}

/// A command-line problem; `nil` message means "print the usage only".
struct ToolError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// Reads a whole file as UTF-8 text.
func readTextFile(_ path: String) throws(ToolError) -> String {
    guard let file = fopen(path, "rb") else {
        throw ToolError("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        bytes.append(contentsOf: chunk[0..<count])
        if count < chunk.count {
            // A short read is the end of the file or an error: an error must not pass for a shorter file.
            guard ferror(file) == 0 else { throw ToolError("cannot read \(path): \(String(cString: strerror(errno)))") }
            break
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
