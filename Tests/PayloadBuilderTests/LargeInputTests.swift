import PayloadBuilder
import XCTest

/// Shapes of input that once took quadratic time (found by the fuzzer's
/// author timing 64 KiB bodies): their results, which must stay right now
/// that they are linear. No wall-clock assertion, by house rule.
final class LargeInputTests: XCTestCase {
    func testADuplicateKeyIsFoundInALargeObject() {
        var members = (0..<5_000).map { "\"k\($0)\":0" }
        members.append("\"k4321\":1")
        let document = Array(("{" + members.joined(separator: ",") + "}").utf8)
        XCTAssertThrowsError(try JSONParser.parse(document)) { error in
            XCTAssertEqual((error as? EventError)?.field, "k4321")
            XCTAssertEqual((error as? EventError)?.code, .invalidJSON)
        }
        let unique = Array(("{" + (0..<5_000).map { "\"k\($0)\":0" }.joined(separator: ",") + "}").utf8)
        guard case let .object(parsed)? = try? JSONParser.parse(unique) else { return XCTFail() }
        XCTAssertEqual(parsed.count, 5_000)
    }

    func testManyUnclosedAngleBracketsAreKeptAsText() {
        let markup = String(repeating: "<a", count: 10_000)
        XCTAssertEqual(RichText.plainText(fromMarkup: markup), markup)
        XCTAssertEqual(RichText.plainText(fromMarkup: markup + ">tail"), "tail", "one tag from the first < to the >")
    }

    /// A comment that never closes, a quote that never closes, and script end
    /// tags that are not one, each repeated to fill a body: once scanned to the
    /// end for every tag (0.5 s per render).
    func testUnclosedCommentsQuotesAndFalseEndTagsAreRead() {
        let comments = String(repeating: "<!-- >", count: 10_000)
        XCTAssertEqual(RichText.plainText(fromMarkup: comments + "x"), "x")
        let quotes = String(repeating: "<a x='>", count: 10_000)
        XCTAssertEqual(RichText.plainText(fromMarkup: quotes + "x"), "x")
        let endTags = "<script>" + String(repeating: "</scriptx", count: 10_000) + "></script>after"
        XCTAssertEqual(RichText.plainText(fromMarkup: endTags), "after")
    }
}
