import Foundation

// pushgw-bench: benchmarks of the hot paths, run from a release build.
// `render` measures PayloadBuilder (recipients rendered per second, one core).
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "render":
    exit(RenderBenchmark.run(Array(arguments.dropFirst())))
case "apns":
    exit(await APNsBenchmark.run(Array(arguments.dropFirst())))
case "fcm":
    exit(await FCMBenchmark.run(Array(arguments.dropFirst())))
case "fcm-simulator":
    exit(FCMBenchmark.serveSimulator(Array(arguments.dropFirst())))
case "webpush":
    exit(await WebPushBenchmark.run(Array(arguments.dropFirst())))
case "webpush-simulator":
    exit(WebPushBenchmark.serveSimulator(Array(arguments.dropFirst())))
case "payload":
    exit(APNsBenchmark.printPayload())
case "jwt":
    exit(APNsBenchmark.printProviderToken(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data("""
    usage: pushgw-bench render [--seconds S | --iterations K] [--recipients N] [--only fcm|apns|request] [--event PATH]
           pushgw-bench apns --origin https://127.0.0.1:PORT [...]   (see pushgw-bench apns --help)
           pushgw-bench fcm --origin https://127.0.0.1:PORT --ca-file CA --service-account FILE [...]
           pushgw-bench fcm-simulator --dir DIR   (an FCM simulator in its own process, for the fcm benchmark)
           pushgw-bench webpush-simulator --dir DIR [--subscriptions N] [--http11 yes]   (a web push service in its own process)
           pushgw-bench webpush --dir DIR [--concurrency C] [--batch B] [--seconds S]
           pushgw-bench payload    (the APNs body the apns benchmark sends, for peer clients)
           pushgw-bench jwt --key-file key.p8 --key-id K --team-id T   (a provider token, for h2load)

      Renders the seed chat event for N devices per event (default 100) for S
      seconds per measurement (default 3), or for exactly K events after a
      warm-up (stable instruction counts under callgrind), on one thread, and prints
        render fcm: <N> recipients/s           render only (the firebase-admin peer's work)
        render apns: <N> recipients/s
        decode+render fcm: <N> recipients/s    parsing and validating the event body too
        decode+render apns: <N> recipients/s
        request (decode+render+report, seed event): <N> events/s
                                               the whole /v1/render work on the seed
                                               event file as it is (2 recipients)

    """.utf8))
    exit(2)
}
