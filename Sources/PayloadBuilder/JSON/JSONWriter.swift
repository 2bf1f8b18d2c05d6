/// Writes JSON as UTF-8 bytes in exactly the order it is told, so output is
/// byte-stable: golden files and provider bodies never depend on hashing.
///
/// Strings are escaped minimally (`"`, `\`, and control characters); other
/// characters, emoji included, are written as raw UTF-8. `/` is not escaped.
/// With `pretty`, objects and arrays are indented by two spaces.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    /// One entry per open container: whether it already holds a value.
    private var filled: [Bool] = []
    /// True right after `key(_:)`: the next value completes that member.
    private var afterKey = false

    public init(pretty: Bool = false, capacity: Int = 512) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    // MARK: containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    public mutating func key(_ name: String) {
        separate()
        JSONWriter.appendEscaped(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: scalars

    public mutating func string(_ value: String) {
        separate()
        JSONWriter.appendEscaped(value, to: &bytes)
    }

    public mutating func int(_ value: Int64) {
        separate()
        JSONWriter.appendDecimal(value, to: &bytes)
    }

    /// Writes a fractional number in Swift's shortest round-trip form
    /// (`1.0`, `0.1`, `1e-05`), so it parses back as the same double and
    /// stays distinct from the integer `1`. JSON has no NaN or infinity:
    /// those are written as `null`.
    public mutating func double(_ value: Double) {
        separate()
        if value.isFinite {
            bytes.append(contentsOf: "\(value)".utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value { bytes.appendLiteral("true") } else { bytes.appendLiteral("false") }
    }

    public mutating func null() {
        separate()
        bytes.appendLiteral("null")
    }

    /// Appends an already-serialized compact JSON value as it is.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: Int64) {
        key(name)
        int(value)
    }

    /// Writes a whole parsed document (used to pretty-print provider bodies).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case let .bool(flag): bool(flag)
        case let .int(number): int(number)
        case let .double(number): double(number)
        case let .string(text): string(text)
        case let .array(items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case let .object(members):
            beginObject()
            for member in members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    // MARK: layout

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        filled.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadValues = filled.removeLast()
        if pretty, hadValues { newline() }
        bytes.append(bracket)
    }

    /// Writes the comma and indentation that go before a value or key.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard !filled.isEmpty else { return }
        if filled[filled.count - 1] { bytes.append(UInt8(ascii: ",")) }
        filled[filled.count - 1] = true
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<filled.count { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    // MARK: primitives shared with the pre-rendered templates

    /// Appends `text` as a quoted JSON string.
    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        JSONEscaping.appendQuoted(text.utf8.span, to: &out)
    }

    /// The escaped, quoted form of `text` as its own byte array.
    public static func escaped(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendEscaped(text, to: &out)
        return out
    }

    /// Appends a decimal integer without going through `String`.
    public static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        let decimal = Decimal(value)
        for index in decimal.start..<decimal.digits.count { out.append(decimal.digits[index]) }
    }

    /// The decimal digits of an integer (with its sign), in a value: the
    /// bytes from `start` to the end of `digits`.
    struct Decimal {
        private(set) var digits = InlineArray<20, UInt8>(repeating: 0)
        private(set) var start = 20

        init(_ value: Int64) {
            var magnitude = value.magnitude
            // Written from the end: 19 digits at most, and the sign before them.
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
        }

        /// The digits as a string.
        var string: String {
            do {
                return String(copying: try UTF8Span(validating: digits.span.extracting(start..<digits.count)))
            } catch {
                preconditionFailure("decimal digits are UTF-8: \(error)")
            }
        }
    }
}
