import Foundation
import XCTest

/// The dependency rule of the README's layers, checked on the sources: every
/// `import` of one of the package's modules in `Sources/` names a module of
/// a lower layer, and the simulators, which stand beside the layers, are
/// imported only by the demo and the tools.
final class ModuleLayeringTests: XCTestCase {
    /// The layers, lowest first; a module may import only modules of lower layers.
    static let layers: [[String]] = [
        ["COpenSSL", "CCurl", "CNGHTTP2", "CMicroHTTPD", "COpenSSLShims", "CCurlShims", "CMallocShims", "CThreadShims",
         "CDigestShims", "CNGHTTP2Shims", "CBuildStamp"],
        ["PushGWSync", "PayloadBuilder"],
        ["OpenSSLCrypto", "Curl", "EventLoops"],
        ["NetworkSockets", "WebPush"],
        ["HTTP2Client", "GatewayHTTP", "RedisClient"],
        ["APNsHTTP2", "FCMClient", "DurableQueue", "WebPushClient"],
        ["GatewayService"],
        ["PushGWDemo"],
        ["PushGateway", "PushGWBench", "PayloadFuzzer", "APNsSimulatorTool"],
    ]
    /// Beside the layers: the strict provider simulators, on the C libraries
    /// and the lowest Swift modules only.
    static let simulators: [String: Int] = ["APNsSimulator": 2]
    /// The only modules that may import a simulator.
    static let simulatorUsers: Set<String> = ["PushGWDemo", "PushGWBench", "APNsSimulatorTool"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    static func layer(of module: String) -> Int? {
        if let index = layers.firstIndex(where: { $0.contains(module) }) { return index }
        return simulators[module]
    }

    /// The package modules each Swift file of `module` imports.
    static func imports(of module: String) throws -> [(file: String, imported: String)] {
        let folder = sources.appendingPathComponent(module)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var found: [(String, String)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                guard let importWord = words.firstIndex(where: { $0 == "import" }), importWord + 1 < words.count,
                      words[..<importWord].allSatisfy({ ["public", "internal", "package", "private", "fileprivate"].contains($0) })
                else { continue }
                let imported = String(words[importWord + 1])
                if layer(of: imported) != nil { found.append((file.lastPathComponent, imported)) }
            }
        }
        return found
    }

    func testEveryModuleHasALayer() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") }
        XCTAssertFalse(folders.isEmpty, "no modules found under \(Self.sources.path)")
        for folder in folders {
            XCTAssertNotNil(Self.layer(of: folder), "Sources/\(folder) is in no layer of ModuleLayeringTests (nor the README's)")
        }
    }

    func testNoModuleImportsItsOwnLayerOrAHigherOne() throws {
        var checked = 0
        for module in Array(Self.layers.joined()) + Array(Self.simulators.keys) {
            let own = try XCTUnwrap(Self.layer(of: module))
            for (file, imported) in try Self.imports(of: module) {
                checked += 1
                if Self.simulators[imported] != nil {
                    XCTAssertTrue(Self.simulatorUsers.contains(module), "\(module)/\(file) imports the simulator \(imported)")
                    continue
                }
                let theirs = try XCTUnwrap(Self.layer(of: imported))
                XCTAssertLessThan(theirs, own, "\(module)/\(file) imports \(imported), of layer \(theirs); \(module) is of layer \(own)")
            }
        }
        XCTAssertGreaterThan(checked, 50, "too few imports found: is the Sources folder where the test looks?")
    }

    func testTheServiceDoesNotLinkTheSimulators() throws {
        let service = try Self.imports(of: "GatewayService").map(\.imported)
        XCTAssertFalse(service.contains("APNsSimulator"))
        XCTAssertTrue(service.contains("PayloadBuilder"), "the check reads no imports of GatewayService")
    }
}
