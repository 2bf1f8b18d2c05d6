/// Numbers, read with the grammar of RFC 8259 as `JSONParser.parseNumber`
/// reads them, and answered as what a field that holds an integer needs.
extension JSONScanner {
    /// A number as an integer field sees it.
    enum Number: Equatable {
        /// Written without fraction or exponent, within 64 bits.
        case integer(Int64)
        /// Whole or not, beyond what 64 bits hold (or beyond any double).
        case outOfRange
        /// Written with a fraction or an exponent: whether such a literal
        /// is whole cannot be told from the double it reads as (`1e-400`
        /// and `0.99999999999999999` read as 0 and 1).
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
        return Self.classify(UnsafeBufferPointer(rebasing: input[start..<position]), integral: true)
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
        return Self.classify(UnsafeBufferPointer(rebasing: input[start..<position]), integral: false)
    }

    /// A long integer or a number with a fraction or an exponent.
    @inline(never)
    private static func classify(_ literal: UnsafeBufferPointer<UInt8>, integral: Bool) -> Number {
        let text = String(decoding: literal, as: UTF8.self)
        if integral {
            return Int64(text).map(Number.integer) ?? .outOfRange
        }
        // A whole number past what 64 bits hold: a fraction there is lost anyway.
        guard let value = Double(text), value.isFinite, value.magnitude < 0x1p63 else { return .outOfRange }
        return .notInteger
    }

    private mutating func skipDigits() {
        while position < input.count, Self.isDigit(input[position]) { position += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
