#if !PUSHGW_FUZZ
import Foundation
import PayloadBuilder

/// Without libFuzzer (a plain `swift build`), `PayloadFuzzer FILE…` runs the
/// same checks on each file once, strictly (known open findings included): a
/// reproducer for a saved crash input that needs no sanitizer build. The fuzzing build (`-DPUSHGW_FUZZ`) leaves this
/// out, since libFuzzer brings its own `main`.
@main
enum ReproducerMain {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: PayloadFuzzer FILE… (runs the fuzz checks once per file; scripts/fuzz.sh fuzzes)")
            exit(2)
        }
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else {
                print("\(path): cannot read")
                exit(2)
            }
            let input = Array(contents)
            do {
                let summary = try PayloadInvariants().check(input)
                print("\(path): ok (json: \(summary.parsedAsJSON), config: \(summary.parsedAsConfig), "
                    + "events: \(summary.decodedEvents), renderings: \(summary.renderings), requests: \(summary.requests))")
            } catch {
                let known = PayloadInvariants.openFindings.contains(error.invariant) ? " (a known open finding)" : ""
                print("\(path): \(error)\(known)")
                exit(1)
            }
        }
    }
}
#endif
