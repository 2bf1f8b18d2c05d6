extension SettingCatalog {
    /// `PUSHGW_*` variables of the repository's own tools, which are not
    /// gateway settings and are tolerated in the gateway's environment
    /// (an operator's shell may export them). This is the one list; any other
    /// unknown `PUSHGW_*` variable refuses the start, as an unknown file key does.
    ///
    /// - `PUSHGW_UPDATE_GOLDEN`: the golden-payload tests rewrite their files;
    /// - `PUSHGW_FUZZ_ONLY`, `PUSHGW_FUZZ_STRICT`: the fuzzer's invariants
    ///   (`PUSHGW_FUZZ` and `PUSHGW_TSAN` are compiler flags, listed in case
    ///   one is exported by habit);
    /// - `PUSHGW_TOKEN`, `PUSHGW_EVENT`, `PUSHGW_PLATFORMS`, `PUSHGW_PATH`:
    ///   read by the wrk scripts `bench/notify.lua` and `bench/render.lua` (the bench scripts
    ///   set them on wrk's command line, not in the gateway's environment);
    /// - `PUSHGW_BENCH_BIN`, `PUSHGW_AIOAPNS_VENV`: options of bench scripts.
    public static let toolVariables: Set<String> = [
        "PUSHGW_UPDATE_GOLDEN", "PUSHGW_FUZZ", "PUSHGW_FUZZ_ONLY", "PUSHGW_FUZZ_STRICT", "PUSHGW_TSAN",
        "PUSHGW_TOKEN", "PUSHGW_EVENT", "PUSHGW_PLATFORMS", "PUSHGW_BENCH_BIN", "PUSHGW_AIOAPNS_VENV",
        "PUSHGW_PATH",
    ]

    /// Every environment variable the gateway reads.
    public static var environmentNames: Set<String> { Set(all.map(\.environment)) }

    /// The first `PUSHGW_*` variable (in name order) that is neither a setting
    /// nor a tool's, as an error suggesting the closest setting.
    public static func unknownVariable(in environment: [String: String]) -> ServiceError? {
        let known = environmentNames
        guard let name = environment.keys.filter({ $0.hasPrefix("PUSHGW_") && !known.contains($0) && !toolVariables.contains($0) })
            .sorted().first else { return nil }
        var message = "unknown setting \(name)"
        if let suggestion = closest(to: name, among: known) { message += "; did you mean \(suggestion)?" }
        return ServiceError(setting: name, message + " (pushgw --help lists every setting)")
    }

    /// The known name nearest to `name` in edit distance, when it is near
    /// enough to be a typo (at most a third of the name's length).
    static func closest(to name: String, among names: Set<String>) -> String? {
        let scored = names.map { ($0, editDistance(Array(name.utf8), Array($0.utf8))) }
            .min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        guard let (best, distance) = scored, distance <= max(2, (name.count - "PUSHGW_".count) / 3) else { return nil }
        return best
    }

    /// Levenshtein distance over bytes.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
