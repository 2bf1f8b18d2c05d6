import Foundation
import GatewayService

// pushgw: the push gateway. `pushgw` (or `pushgw serve`) runs the service;
// `pushgw render EVENT.json` prints what an event would send, offline.
// A peer closing a socket must be an error on that connection, never the end
// of the process: our TLS sockets and libmicrohttpd already send with
// MSG_NOSIGNAL; this also covers OpenSSL inside libcurl (avatars, OAuth).
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "render":
    status = RenderCommand.run(Array(arguments.dropFirst()))
case "--help", "-h", "help":
    print(SettingCatalog.helpText)
    status = 0
case "serve":
    status = await ServeCommand.run(Array(arguments.dropFirst()))
case let first? where !first.hasPrefix("-"):
    FileHandle.standardError.write(Data("pushgw: unknown command \"\(first)\"\n\n\(SettingCatalog.helpText)\n".utf8))
    status = 2
default:
    status = await ServeCommand.run(arguments)
}
exit(status)
