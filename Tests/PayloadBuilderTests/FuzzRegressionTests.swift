import Foundation
import PayloadBuilder
import XCTest

/// The fuzzer's properties (`PayloadInvariants`) hold for every golden event
/// and configuration, and for every input the fuzzer ever found
/// (`fixtures/fuzz-regressions`); known open findings still break exactly
/// their property, so the test says when one gets fixed.
final class FuzzRegressionTests: XCTestCase {
    static let fixturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    static func files(in folder: String, suffix: String) throws -> [URL] {
        let directory = fixturesDirectory.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(suffix) }
            .sorted()
            .map { directory.appendingPathComponent($0) }
    }

    static func contents(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    /// The invariant an `open--<invariant>--NAME.bin` file still breaks, or nil.
    static func openInvariant(of url: URL) -> PayloadInvariants.Invariant? {
        let name = url.lastPathComponent
        guard name.hasPrefix("open--") else { return nil }
        let parts = name.dropFirst("open--".count).components(separatedBy: "--")
        return PayloadInvariants.Invariant.all.first { $0.name == parts.first }
    }

    func testEveryGoldenEventKeepsEveryPropertyUnderEachConfiguration() throws {
        let events = try Self.files(in: "payloads", suffix: ".event.json")
        XCTAssertGreaterThanOrEqual(events.count, 14)
        for url in events {
            let name = url.lastPathComponent.dropLast(".event.json".count)
            let configURL = url.deletingLastPathComponent().appendingPathComponent("\(name).config.json")
            var configs = PayloadInvariants.standardConfigs()
            if FileManager.default.fileExists(atPath: configURL.path) {
                configs.append(try RenderConfig(json: Self.contents(configURL)))
            }
            do {
                let summary = try PayloadInvariants(configs: configs).check(Self.contents(url))
                // Each golden event decodes under one configuration at least and renders
                // with both avatar states, so the rendering checks did run.
                XCTAssertGreaterThanOrEqual(summary.decodedEvents, 1, "\(name)")
                XCTAssertGreaterThanOrEqual(summary.renderings, 2, "\(name)")
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
    }

    func testEveryGoldenConfigurationKeepsEveryPropertyWhenItRendersTheProbeEvent() throws {
        let configs = try Self.files(in: "payloads", suffix: ".config.json")
        XCTAssertFalse(configs.isEmpty)
        for url in configs {
            do {
                let summary = try PayloadInvariants().check(Self.contents(url))
                XCTAssertTrue(summary.parsedAsConfig, url.lastPathComponent)
                XCTAssertGreaterThanOrEqual(summary.requests, 1, url.lastPathComponent)
            } catch {
                XCTFail("\(url.lastPathComponent): \(error)")
            }
        }
    }

    func testEveryFuzzRegressionInputKeepsEveryPropertyOrStillBreaksOnlyItsOpenOne() throws {
        let inputs = try Self.files(in: "fuzz-regressions", suffix: ".bin")
        XCTAssertGreaterThanOrEqual(inputs.count, 3, "the regression inputs were found (fixtures/fuzz-regressions)")
        for url in inputs {
            let name = url.lastPathComponent
            let input = try Self.contents(url)
            let isOpen = name.hasPrefix("open--")
            guard let open = Self.openInvariant(of: url) else {
                XCTAssertFalse(isOpen, "\(name): no invariant is named \(name.split(separator: "-").dropFirst(2).first ?? "")")
                do {
                    try PayloadInvariants().check(input)
                } catch {
                    XCTFail("\(name) broke a property again: \(error)")
                }
                continue
            }
            do {
                try PayloadInvariants().check(input)
                XCTFail("\(name) keeps every property now: if its bug is fixed, drop the open--\(open)-- prefix "
                    + "and \(open) from PayloadInvariants.openFindings")
            } catch {
                XCTAssertEqual(error.invariant, open, "\(name): \(error)")
            }
            // With its own property tolerated, nothing else breaks.
            do {
                try PayloadInvariants(tolerated: [open]).check(input)
            } catch {
                XCTFail("\(name) also breaks another property: \(error)")
            }
        }
    }

    func testTheOpenFindingsAreExactlyThoseOfTheOpenRegressionInputs() throws {
        let named = Set(try Self.files(in: "fuzz-regressions", suffix: ".bin").compactMap(Self.openInvariant(of:)))
        XCTAssertEqual(Set(PayloadInvariants.openFindings.map(\.name)), Set(named.map(\.name)))
    }
}
