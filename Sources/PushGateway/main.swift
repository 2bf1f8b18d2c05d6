import CMallocShims
import Foundation
import GatewayService

// pushgw: the push gateway. `pushgw` (or `pushgw serve`) runs the service;
// `pushgw render EVENT.json` prints what an event would send, offline;
// `pushgw simulators` runs only the built-in provider simulators;
// `pushgw vapid-keys` makes a VAPID key pair for direct web push;
// `pushgw --version` prints the version and the commit.
// A peer closing a socket must be an error on that connection, never the end
// of the process: our TLS sockets and libmicrohttpd already send with
// MSG_NOSIGNAL; this also covers OpenSSL inside libcurl (avatars, OAuth).
signal(SIGPIPE, SIG_IGN)
// glibc gives every thread that allocates its own malloc arena, up to 8 per
// core, and freed memory stays in the arena that served it. With libmicrohttpd
// workers, the Swift task pool and one loop thread per two HTTP/2 connections,
// that spread cost ~2 MB of resident memory under load for no measurable speed
// on this 2-core box. Two arenas, unless the operator set MALLOC_ARENA_MAX.
if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil {
    _ = pgw_limit_malloc_arenas(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "render":
    status = RenderCommand.run(Array(arguments.dropFirst()))
case "--version", "version":
    print(BuildVersion.line)
    status = 0
case "--help", "-h", "help":
    print(SettingCatalog.helpText)
    status = 0
case "vapid-keys":
    status = VAPIDKeysCommand.run(Array(arguments.dropFirst()))
case "simulators":
    status = await SimulatorsCommand.run(Array(arguments.dropFirst()))
case "serve":
    status = await ServeCommand.run(Array(arguments.dropFirst()))
case let first? where !first.hasPrefix("-"):
    FileDescriptorWriter.write(Array("pushgw: unknown command \"\(first)\"\n\n\(SettingCatalog.helpText)\n".utf8), to: STDERR_FILENO)
    status = 2
default:
    status = await ServeCommand.run(arguments)
}
exit(status)
