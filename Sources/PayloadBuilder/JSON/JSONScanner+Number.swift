/// Numbers, read with the grammar of RFC 8259 as `JSONParser.parseNumber`
/// reads them, and answered as what a field that holds an integer needs.
extension JSONScanner {
    /// A number as an integer field sees it.
    enum Number: Equatable {
        /// A whole number within 64 bits, however written (`86400`,
        /// `86400.0`, `8.64e4`: JSON Schema's `integer`).
        case integer(Int64)
        /// A whole number beyond what 64 bits hold, or a number with a
        /// fraction so far out that no 64-bit integer is near it.
        case outOfRange
        /// Not whole: a fraction that is not all zeros once the exponent
        /// is applied (`1e-400`, `0.99999999999999999`, `100.5`).
        case notInteger
    }

    /// The number at `position` (where `kind()` found one). The usual
    /// one, a short integer, is read in one pass: its value is made as its
    /// digits are checked.
    @inline(__always)
    mutating func number() throws(Failure) -> Number {
        let start = position
        let negative = input[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < input.count, Self.isDigit(input[position]) else { throw syntaxError("invalid number") }
        var value: Int64 = 0
        if input[position] == UInt8(ascii: "0") {
            position += 1
            if position < input.count, Self.isDigit(input[position]) { throw syntaxError("leading zeros are not allowed") }
        } else {
            // Wraps past 18 characters, where the value is read again from the text.
            while position < input.count, Self.isDigit(input[position]) {
                value = value &* 10 &+ Int64(input[position] &- UInt8(ascii: "0"))
                position += 1
            }
        }
        if position < input.count, input[position] == UInt8(ascii: ".") || input[position] | 0x20 == UInt8(ascii: "e") {
            return try fractionOrExponent(from: start)
        }
        // Up to 18 characters always fit an Int64.
        if position - start <= 18 { return .integer(negative ? -value : value) }
        return Self.classify(UnsafeBufferPointer(rebasing: input[start..<position]))
    }

    /// The rest of `number()` from a `.` or an `e` after the integral part
    /// of the number that starts at `start`.
    @inline(never)
    private mutating func fractionOrExponent(from start: Int) throws(Failure) -> Number {
        if input[position] == UInt8(ascii: ".") {
            position += 1
            guard position < input.count, Self.isDigit(input[position]) else { throw syntaxError("invalid number") }
            skipDigits()
        }
        if position < input.count, input[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < input.count, Self.isDigit(input[position]) else { throw syntaxError("invalid number") }
            skipDigits()
        }
        return Self.classify(UnsafeBufferPointer(rebasing: input[start..<position]))
    }

    /// A long integer or a number with a fraction or an exponent, judged
    /// on its digits, never on the double it reads as (`1e-400` and
    /// `0.99999999999999999` read as 0 and 1, yet are not whole): the
    /// significant digits with the exponent applied are whole when the
    /// digits past the decimal point are all zeros.
    @inline(never)
    private static func classify(_ literal: UnsafeBufferPointer<UInt8>) -> Number {
        var index = 0
        let negative = literal[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        // The digits without the point, and the power of ten of the last one.
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        while index < literal.count, literal[index] | 0x20 != UInt8(ascii: "e") {
            let byte = literal[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                digits.append(byte &- UInt8(ascii: "0"))
                if inFraction { fractionDigits += 1 }
            }
            index += 1
        }
        var exponent = 0
        if index < literal.count {
            index += 1
            let exponentNegative = literal[index] == UInt8(ascii: "-")
            if literal[index] == UInt8(ascii: "-") || literal[index] == UInt8(ascii: "+") { index += 1 }
            // Clamped: beyond 10^5 every nonzero number is out of range or not whole.
            while index < literal.count {
                exponent = min(exponent * 10 + Int(literal[index] &- UInt8(ascii: "0")), 100_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // Leading zeros change nothing; trailing zeros raise the power.
        let first = digits.firstIndex { $0 != 0 }
        guard let first else { return .integer(0) }
        var last = digits.count - 1
        var power = exponent - fractionDigits
        while digits[last] == 0 {
            last -= 1
            power += 1
        }
        guard power >= 0 else {
            // A fraction remains; far out, it is beyond any 64-bit integer anyway.
            return last - first + 1 + power > 19 ? .outOfRange : .notInteger
        }
        guard last - first + 1 + power <= 19 else { return .outOfRange }
        // At most 19 digits: within UInt64, checked against Int64's range below.
        var magnitude: UInt64 = 0
        for digit in digits[first...last] { magnitude = magnitude * 10 + UInt64(digit) }
        for _ in 0..<power { magnitude *= 10 }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
        }
        guard magnitude <= UInt64(Int64.max) else { return .outOfRange }
        return .integer(Int64(magnitude))
    }

    private mutating func skipDigits() {
        while position < input.count, Self.isDigit(input[position]) { position += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
