import PayloadBuilder

#if canImport(Glibc)
import Glibc
#endif

/// The checks every fuzz input goes through, built once: the demo and the
/// two-app configurations and a fixed clock. Which properties are enforced
/// comes from the environment, read once here at the edge:
/// - by default all but the known open findings, so that a run finds new
///   bugs instead of the same one again;
/// - `PUSHGW_FUZZ_STRICT=1`: all of them (to reproduce an open finding);
/// - `PUSHGW_FUZZ_ONLY=<invariant>`: that one alone, or none with `none`, so
///   that `-minimize_crash` shrinks an input without drifting to another bug.
let invariants: PayloadInvariants = {
    func setting(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    let tolerated: Set<PayloadInvariants.Invariant>
    if let only = setting("PUSHGW_FUZZ_ONLY") {
        tolerated = Set(PayloadInvariants.Invariant.all.filter { $0.name != only })
    } else if setting("PUSHGW_FUZZ_STRICT") == "1" {
        tolerated = []
    } else {
        tolerated = PayloadInvariants.openFindings
    }
    return PayloadInvariants(tolerated: tolerated)
}()

/// libFuzzer's entry point: one input, read every way the gateway could read
/// it (JSON, configuration, event under each configuration, rendered with the
/// avatar absent and unchecked). Refusals are fine; a broken property traps,
/// which libFuzzer reports as a crash and saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try invariants.check(input)
    } catch {
        fatalError("\(error)")
    }
    return 0
}
