import Foundation
import Hummingbird
import Logging
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// `doc/control-api.md` documents every route the control server registers, and registers every
/// route it documents: each `METHOD /path` in its headings, and the guard routes it names as such.
@Suite(.timeLimit(.minutes(2))) struct ControlRoutesDocTests {
    /// The routes the control server registers, as `GET /v1/status`.
    static func registered() -> Set<String> {
        let server = ControlServer(socketPath: "/nonexistent/d.sock", socketGroup: nil, maxRequestBytes: 4096, backend: FakeBackend(), eventLoopGroup: controlTestLoop, logger: Logger(label: "test"))
        let router = Router(context: ControlRequestContext.self)
        server.addRoutes(to: router)
        return Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    /// The routes the document names: in its headings, and on its `Guard route:` lines.
    static func documented() throws -> (headings: Set<String>, guards: Set<String>) {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("doc/control-api.md"), encoding: .utf8)
        var headings = Set<String>(), guards = Set<String>()
        for line in text.split(separator: "\n") {
            let isHeading = line.hasPrefix("## ") || line.hasPrefix("### ")
            let isGuard = line.hasPrefix("Guard route:")
            guard isHeading || isGuard else { continue }
            for route in routes(in: String(line)) {
                if isHeading { headings.insert(route) } else { guards.insert(route) }
            }
        }
        return (headings, guards)
    }

    /// Every `` `METHOD /path` `` in `line`.
    static func routes(in line: String) -> [String] {
        line.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { index, part in
            guard index % 2 == 1 else { return nil }
            let words = part.split(separator: " ")
            guard words.count == 2, ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(String(words[0])), words[1].hasPrefix("/") else { return nil }
            return "\(words[0]) \(words[1])"
        }
    }

    @Test func everyRegisteredRouteIsDocumentedAndEveryDocumentedOneIsRegistered() throws {
        let registered = Self.registered()
        let documented = try Self.documented()
        #expect(registered.count >= 20, "the router lists its routes: \(registered)")
        let undocumented = registered.subtracting(documented.headings).subtracting(documented.guards)
        #expect(undocumented.isEmpty, "registered but not in doc/control-api.md: \(undocumented.sorted())")
        let unregistered = documented.headings.union(documented.guards).subtracting(registered)
        #expect(unregistered.isEmpty, "in doc/control-api.md but not registered: \(unregistered.sorted())")
    }

    @Test func routesAreReadFromHeadingsAndGuardLines() {
        #expect(Self.routes(in: "## `GET /v1/dead` and `POST /v1/dead/{id}/requeue`") == ["GET /v1/dead", "POST /v1/dead/{id}/requeue"])
        #expect(Self.routes(in: "## The queue").isEmpty)
        #expect(Self.routes(in: "Guard route: `POST /v1/dead/requeue` (an empty id)") == ["POST /v1/dead/requeue"])
    }
}
