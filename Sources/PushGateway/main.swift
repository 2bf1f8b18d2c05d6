import Foundation

// pushgw: the push gateway's command line. `render` prints the provider
// requests an event would produce; the HTTP service comes with the service issue.
let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "render":
    status = RenderCommand.run(Array(arguments.dropFirst()))
case "--help", "-h", "help", nil:
    print(Usage.text)
    status = arguments.isEmpty ? 2 : 0
default:
    FileHandle.standardError.write(Data("pushgw: unknown command \"\(arguments[0])\"\n\n\(Usage.text)\n".utf8))
    status = 2
}
exit(status)
