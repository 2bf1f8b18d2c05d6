import APNsSimulator
import Glibc

// apns-simulator: runs an APNsSimulator until SIGINT or SIGTERM.
//
// The two signals are blocked before any thread starts (threads inherit the
// mask) and then taken synchronously with sigwait, so no signal handler and
// no global state is needed.

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = write(STDERR_FILENO, bytes, bytes.count)
}

let options: ToolOptions
do {
    options = try ToolOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message {
        printError("apns-simulator: \(message)")
        printError(ToolOptions.usage)
        exit(2)
    }
    print(ToolOptions.usage)
    exit(0)
}

var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

do {
    let publicKey = try readTextFile(options.publicKeyPath!)
    let configuration = APNsSimulatorConfiguration(
        teamID: options.teamID!,
        keys: [options.keyID!: publicKey],
        topics: options.topics,
        port: options.port,
        maxConcurrentStreams: options.maxStreams,
        limitStreamsUntilAuthenticated: options.limitStreamsUntilAuthenticated,
        recordsNotifications: false,
        recordsAcceptedIDs: false
    )
    let simulator = try APNsSimulator(configuration: configuration)
    try simulator.start()
    let caPath = options.caOutputPath ?? "/tmp/apns-simulator-\(getpid())-ca.pem"
    try simulator.writeCA(to: caPath)
    print("apns-simulator listening on \(simulator.url) ca=\(caPath)")
    fflush(nil)

    var received: Int32 = 0
    sigwait(&signals, &received)
    simulator.stop()
    if options.caOutputPath == nil { unlink(caPath) }  // the default file is ours to remove
    let statistics = simulator.statistics
    printError("apns-simulator: stopped by signal \(received); accepted \(statistics.acceptedTotal), rejected \(statistics.rejectedTotal), connections \(statistics.connectionsAccepted)")
    exit(0)
} catch let error as ToolError {
    printError("apns-simulator: \(error.message ?? "error")")
    exit(1)
} catch {
    printError("apns-simulator: \(error)")
    exit(1)
}
