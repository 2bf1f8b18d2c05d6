import Foundation
import PayloadBuilder

/// The whole per-request work of `/v1/render` on one event file as it is:
/// decode and validate, render for every recipient, write the compact answer
/// (as `Dispatcher.renderWithoutWaiting` does, with `renderReport` into the
/// memory of the answer before, which the server hands back).
extension RenderBenchmark {
    /// The seed chat SDK event (two recipients: one FCM, one APNs).
    static let seedEventPath = "fixtures/payloads/seed-chat-sdk.event.json"

    /// Events per second, or nil (after saying why) when the event cannot be
    /// read or does not render.
    static func measureRequest(budget: Budget, config: RenderConfig, eventPath: String?) -> Double? {
        guard let body = readEvent(eventPath) else { return nil }
        do {
            var sink = 0
            var spare: [UInt8] = []
            let rate = try timed(budget) {
                let (event, appIndex) = try EventDecoder(config: config).decodeIndexed(body)
                let avatar = AvatarState(unresolvedURL: event.sender.avatarURL)
                var memory: [UInt8] = []
                swap(&memory, &spare)  // moved, not shared: its memory is reused
                let report = try EventRenderer(config: config)
                    .renderReport(event, appIndex: appIndex, avatar: avatar, now: 1_767_225_600, reusing: memory)
                sink &+= report.count
                spare = report
                return 1
            }
            // Keeps the optimizer from dropping the work.
            if sink == 42 { print("") }
            return rate
        } catch {
            FileHandle.standardError.write(Data("pushgw-bench: \(error)\n".utf8))
            return nil
        }
    }

    /// The event bytes from `path`; by default the seed fixture, looked up
    /// from the working directory, then from the directories above the
    /// executable (the package root holds `.build`).
    private static func readEvent(_ path: String?) -> [UInt8]? {
        var candidates: [String]
        if let path {
            candidates = [path]
        } else {
            candidates = [seedEventPath]
            var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<5 {
                directory = directory.deletingLastPathComponent()
                candidates.append(directory.appendingPathComponent(seedEventPath).path)
            }
        }
        for candidate in candidates {
            if let data = FileManager.default.contents(atPath: candidate) { return Array(data) }
        }
        FileHandle.standardError.write(Data("pushgw-bench render: cannot read \(candidates[0]); pass --event PATH\n".utf8))
        return nil
    }
}
