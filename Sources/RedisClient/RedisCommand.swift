/// One Redis command: its name and arguments as bytes, binary-safe, sent as
/// a RESP array of bulk strings.
///
/// ```swift
/// RedisCommand("SET", "key", "value", "NX", "PX", "60000")
/// RedisCommand(arguments: [Array("SET".utf8), key, payload])
/// ```
public struct RedisCommand: Sendable, Equatable {
    /// The name first, then each argument.
    public var arguments: [[UInt8]]

    /// A command of byte arguments, its name first.
    public init(arguments: [[UInt8]]) {
        self.arguments = arguments
    }

    /// A command of text arguments (UTF-8).
    public init(_ name: String, _ arguments: String...) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    /// A command of text arguments (UTF-8).
    public init(_ name: String, arguments: [String]) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    /// The command's name, for errors and logs (never its arguments, which may be secrets).
    public var name: String {
        arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Adds an argument of bytes.
    public mutating func append(_ bytes: [UInt8]) {
        arguments.append(bytes)
    }

    /// Adds a text argument (UTF-8).
    public mutating func append(_ text: String) {
        arguments.append(Array(text.utf8))
    }

    /// Adds an integer argument, in decimal.
    public mutating func append(_ number: Int) {
        arguments.append(Array(String(number).utf8))
    }

    /// `EVAL script numkeys key… arg…`: runs a Lua script (and loads it into the script cache).
    public static func eval(_ script: String, keys: [[UInt8]] = [], arguments: [[UInt8]] = []) -> RedisCommand {
        RedisCommand(arguments: [Array("EVAL".utf8), Array(script.utf8), Array(String(keys.count).utf8)] + keys + arguments)
    }

    /// `EVALSHA sha1 numkeys key… arg…`: runs a script already in the server's cache
    /// (`NOSCRIPT` error otherwise; `RedisScript` falls back to `EVAL`).
    public static func evalSHA(_ sha1: String, keys: [[UInt8]] = [], arguments: [[UInt8]] = []) -> RedisCommand {
        RedisCommand(arguments: [Array("EVALSHA".utf8), Array(sha1.utf8), Array(String(keys.count).utf8)] + keys + arguments)
    }

    /// Appends the command's RESP encoding: `*N\r\n` then `$len\r\nbytes\r\n` per argument.
    public func encode(into output: inout [UInt8]) {
        Self.header(UInt8(ascii: "*"), arguments.count, into: &output)
        for argument in arguments {
            Self.header(UInt8(ascii: "$"), argument.count, into: &output)
            output.append(contentsOf: argument)
            output.append(13)
            output.append(10)
        }
    }

    private static func header(_ type: UInt8, _ count: Int, into output: inout [UInt8]) {
        output.append(type)
        output.append(contentsOf: String(count).utf8)
        output.append(13)
        output.append(10)
    }
}
