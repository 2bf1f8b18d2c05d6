@testable import FCMClient
import PayloadBuilder
import XCTest

/// The name of an accepted message: the plain reader used for FCM's usual
/// answer gives what the full JSON parser gives, and steps aside otherwise.
final class MessageNameTests: XCTestCase {
    private func viaParser(_ text: String) -> String {
        if let document = try? JSONParser.parse(Array(text.utf8)), case .string(let name)? = document["name"] { return name }
        return ""
    }

    func testThePlainReaderAgreesWithTheParser() {
        let answers = [
            #"{"name":"projects/p/messages/0:1500415314455276%31bd1c9631bd1c96"}"#,
            "{\n  \"name\": \"projects/p/messages/1\"\n}\n",
            " \t{ \"name\" : \"x\" } \r\n",
            #"{"name":""}"#,
        ]
        for answer in answers {
            XCTAssertNotNil(FCMProvider.plainMessageName(Array(answer.utf8)), answer)
            XCTAssertEqual(FCMProvider.messageName(Array(answer.utf8)), viaParser(answer), answer)
        }
    }

    func testAnythingElseGoesToTheParser() {
        let answers = [
            #"{"name":"a\"b"}"#,             // an escape
            #"{"name":"a\u0041"}"#,
            #"{"name":"caf\#u{E9}"}"#,       // non-ASCII
            #"{"other":1,"name":"n"}"#,      // more members
            #"{"name":"n","other":1}"#,
            #"{"name":"n"} x"#,               // trailing bytes
            #"{"name":"n""#,                  // truncated
            #"{"name":5}"#,
            #"["name"]"#,
            "",
        ]
        for answer in answers {
            XCTAssertNil(FCMProvider.plainMessageName(Array(answer.utf8)), answer)
            XCTAssertEqual(FCMProvider.messageName(Array(answer.utf8)), viaParser(answer), answer)
        }
        XCTAssertEqual(FCMProvider.messageName(Array(#"{"name":"a\"b"}"#.utf8)), "a\"b")
        XCTAssertEqual(FCMProvider.messageName(Array(#"{"other":1,"name":"n"}"#.utf8)), "n")
    }
}
