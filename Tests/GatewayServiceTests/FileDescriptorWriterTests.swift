import Foundation
import Synchronization
import GatewayService
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Logging never stops the process: a log reader that went away or a full
/// disk drops the line (`FileHandle.write` trapped on both: the security
/// review crashed the gateway with one anonymous request that way).
final class FileDescriptorWriterTests: XCTestCase {
    func testBytesReachAPipeWholeAndInOrder() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let line = Array(repeating: UInt8(ascii: "x"), count: 20_000) + [0x0A]
        let reader = Thread { [ends] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(ends[0], &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            ReceivedBytes.shared.set(received)
        }
        reader.start()
        XCTAssertTrue(FileDescriptorWriter.write(line, to: ends[1]))
        close(ends[1])
        let deadline = Date().addingTimeInterval(5)
        while ReceivedBytes.shared.value == nil, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(ReceivedBytes.shared.value, line)
    }

    func testAPipeWithoutAReaderDropsTheLine() throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        defer { close(ends[1]) }
        XCTAssertFalse(FileDescriptorWriter.write(Array("lost\n".utf8), to: ends[1]))
    }

    func testAFullDiskDropsTheLine() throws {
        let full = open("/dev/full", O_WRONLY)
        try XCTSkipIf(full < 0, "no /dev/full here")
        defer { close(full) }
        XCTAssertFalse(FileDescriptorWriter.write(Array("lost\n".utf8), to: full))
    }

    /// The logger's own sink, with standard error pointed at /dev/full and
    /// then at a pipe nobody reads: both lines are dropped, the process goes on.
    func testTheLoggerSurvivesAStandardErrorThatRefusesWrites() throws {
        let full = open("/dev/full", O_WRONLY)
        try XCTSkipIf(full < 0, "no /dev/full here")
        let previousSignal = signal(SIGPIPE, SIG_IGN)
        let savedStandardError = dup(STDERR_FILENO)
        defer {
            dup2(savedStandardError, STDERR_FILENO)
            close(savedStandardError)
            signal(SIGPIPE, previousSignal)
        }
        dup2(full, STDERR_FILENO)
        close(full)
        let logger = Logger(minimumLevel: .info)
        logger.warning("refused request", [("route", "/v1/render"), ("code", "401")])
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        dup2(ends[1], STDERR_FILENO)
        close(ends[1])
        logger.warning("refused request", [("route", "/v1/render"), ("code", "401")])
    }
}

/// What the reader thread of the pipe test received.
private final class ReceivedBytes: Sendable {
    static let shared = ReceivedBytes()
    private let storage = Mutex<[UInt8]?>(nil)
    var value: [UInt8]? { storage.withLock { $0 } }
    func set(_ bytes: [UInt8]) { storage.withLock { $0 = bytes } }
}
