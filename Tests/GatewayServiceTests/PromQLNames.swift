/// The metric names a PromQL expression selects: every bare identifier that
/// is not a function, an aggregation, a keyword or a number, with label
/// matchers (`{…}`), ranges (`[…]`), grouping label lists (`by (…)`,
/// `on (…)`…), strings and comments skipped. Enough for the expressions
/// the project ships, which promtool parses for real besides; an expression
/// in which it finds no name at all is reported by the tests.
enum PromQLNames {
    private static let aggregations: Set<String> = [
        "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile",
    ]
    /// Keywords followed by a list of label names in parentheses.
    private static let labelLists: Set<String> = ["by", "without", "on", "ignoring", "group_left", "group_right"]
    private static let keywords: Set<String> = ["and", "or", "unless", "bool", "offset", "inf", "nan", "start", "end", "atan2"]

    static func names(in expr: String) -> Set<String> {
        let characters = Array(expr)
        var names: Set<String> = []
        var index = 0

        func skipString(_ quote: Character) {
            index += 1
            while index < characters.count, characters[index] != quote {
                index += characters[index] == "\\" ? 2 : 1
            }
            index += 1
        }
        /// Skips from an opening bracket to its closing one, strings inside included.
        func skipGroup(_ open: Character, _ close: Character) {
            var depth = 0
            while index < characters.count {
                let character = characters[index]
                if character == "\"" || character == "'" || character == "`" { skipString(character); continue }
                if character == open { depth += 1 }
                if character == close {
                    depth -= 1
                    if depth == 0 { index += 1; return }
                }
                index += 1
            }
        }
        func nextNonSpace(from start: Int) -> Int {
            var position = start
            while position < characters.count, characters[position].isWhitespace { position += 1 }
            return position
        }
        func isIdentifierStart(_ character: Character) -> Bool { character.isLetter || character == "_" || character == ":" }
        func isIdentifier(_ character: Character) -> Bool { isIdentifierStart(character) || character.isNumber }

        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\"", "'", "`":
                skipString(character)
            case "{":
                skipGroup("{", "}")
            case "[":
                skipGroup("[", "]")
            case "#":
                while index < characters.count, characters[index] != "\n" { index += 1 }
            case _ where character.isNumber || (character == "." && index + 1 < characters.count && characters[index + 1].isNumber):
                // A number or a duration (5m, 1e3, 0x1f, 1h30m).
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "." {
                    index += 1
                }
            case _ where isIdentifierStart(character):
                let start = index
                while index < characters.count, isIdentifier(characters[index]) { index += 1 }
                let word = String(characters[start..<index])
                let next = nextNonSpace(from: index)
                let opensParenthesis = next < characters.count && characters[next] == "("
                if labelLists.contains(word.lowercased()) {
                    if opensParenthesis {
                        index = next
                        skipGroup("(", ")")
                    }
                } else if opensParenthesis || keywords.contains(word.lowercased()) {
                    // A function call, an aggregation, or a keyword.
                } else if aggregations.contains(word.lowercased()) {
                    // An aggregation followed by `by (…)` or `without (…)`.
                } else {
                    names.insert(word)
                }
            default:
                index += 1
            }
        }
        return names
    }
}
