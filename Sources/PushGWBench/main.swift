import Foundation

// pushgw-bench: benchmarks of the hot paths, run from a release build.
// `render` measures PayloadBuilder (recipients rendered per second, one core).
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "render":
    exit(RenderBenchmark.run(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data("""
    usage: pushgw-bench render [--seconds S] [--recipients N]
      Renders the seed chat event for N devices per event (default 100) for S
      seconds per measurement (default 3) on one thread, and prints
        render fcm: <N> recipients/s           render only (the firebase-admin peer's work)
        render apns: <N> recipients/s
        decode+render fcm: <N> recipients/s    parsing and validating the event body too
        decode+render apns: <N> recipients/s

    """.utf8))
    exit(2)
}
