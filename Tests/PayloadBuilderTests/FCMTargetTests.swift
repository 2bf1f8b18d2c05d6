@testable import PayloadBuilder
import XCTest

/// The FCM request path is made once, when the project is set: it must stay
/// the path of `sendURL` (the interpolated rule) for any project id, and
/// follow the project when it is changed after the target is made.
final class FCMTargetTests: XCTestCase {
    private let projects = ["pushgw-demo", "", "a", "chat-prod", "p/r?q#x", "projet-été-👋", String(repeating: "x", count: 300)]

    func testSendPathIsThePathOfSendURL() {
        for project in projects {
            for base in [FCMTarget.production, "http://127.0.0.1:8443/", "https://fcm.example"] {
                let target = FCMTarget(projectID: project, baseURL: base)
                XCTAssertEqual(target.baseURL + target.sendPath, target.sendURL, project)
                XCTAssertEqual(target.sendPath, "/v1/projects/\(project)/messages:send", project)
            }
        }
    }

    func testSendPathFollowsAChangedProject() {
        var target = FCMTarget(projectID: "first")
        for project in projects {
            target.projectID = project
            XCTAssertEqual(target.baseURL + target.sendPath, target.sendURL, project)
        }
    }
}
