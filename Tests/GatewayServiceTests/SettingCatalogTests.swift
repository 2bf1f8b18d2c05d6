import Foundation
import GatewayService
import XCTest

/// L3 and the tolerated tool variables: the help says what the loader
/// enforces, and every `PUSHGW_*` name the repository uses is either a
/// setting or listed in `SettingCatalog.toolVariables`.
final class SettingCatalogTests: XCTestCase {
    func testTheHelpStatesRangesTheTokenMinimumTheDemoAndTheProjectID() {
        let help = SettingCatalog.helpText
        for needle in ["0 to 86400", "1 to 10000000", "1 to 600", "1 to 64", "20 to 50", "at least 16 characters", "--demo ",
                       "apps[].fcm.project_id", "PUSHGW_APNS_TOKEN_REFRESH_MINUTES", "0.2 KB"] {
            XCTAssertTrue(help.contains(needle), needle)
        }
        XCTAssertFalse(help.contains("0.5 KB"))
        XCTAssertTrue(SettingCatalog.renderHelpText.contains("--config FILE"))
        XCTAssertTrue(SettingCatalog.simulatorsHelpText.contains("--env-file FILE"))
    }

    func testEveryPUSHGWNameInTheRepositoryIsASettingOrAToolVariable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let pattern = try NSRegularExpression(pattern: "PUSHGW_[A-Z0-9_]+")
        var used = Set<String>()
        for folder in ["bench", "scripts", "fuzz", "packaging", "Sources", "Tests/PayloadBuilderTests"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let file = enumerator?.nextObject() as? String {
                guard let text = try? String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
                else { continue }
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let name = String(text[Range(match.range, in: text)!])
                    if !name.hasSuffix("_H"), !name.hasSuffix("_") { used.insert(name) }
                }
            }
        }
        let known = SettingCatalog.environmentNames.union(SettingCatalog.toolVariables)
        XCTAssertEqual(used.subtracting(known).sorted(), [], "used but neither a setting nor a tool variable")
        XCTAssertEqual(SettingCatalog.toolVariables.subtracting(used).sorted(), [], "tool variables nothing uses any more")
    }
}
