import Foundation
import PushGWSync
import GatewayService
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Logging never stops the process: a log reader that went away or a full
/// disk drops the line (`FileHandle.write` traps on both, so one anonymous
/// request could crash the gateway that way).
final class FileDescriptorWriterTests: XCTestCase {
    func testBytesReachAPipeWholeAndInOrder() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let line = Array(repeating: UInt8(ascii: "x"), count: 20_000) + [0x0A]
        let received = Locked<[UInt8]>([])
        let readToTheEnd = DispatchSemaphore(value: 0)
        let reader = Thread { [ends] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(ends[0], &buffer, buffer.count)
                if count <= 0 { break }
                received.withLock { $0 += buffer[0..<count] }
            }
            readToTheEnd.signal()
        }
        reader.start()
        XCTAssertTrue(FileDescriptorWriter.write(line, to: ends[1]))
        close(ends[1])
        XCTAssertEqual(readToTheEnd.wait(timeout: .now() + .seconds(5)), .success, "the reader sees the end of the pipe")
        XCTAssertEqual(received.withLock { $0 }, line)
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
