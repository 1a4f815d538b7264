import Foundation
import HTTPTypes
import Hummingbird
import Kiosk
import KioskTesting
import Logging
import SurveyTesting
import Testing

/// `doc/kiosk.md`'s route table lists every route the kiosk's pages register (with the staff
/// screen on), and every route it lists is registered. Asset and brand paths carry a content hash
/// (`<hash>` in the table); the brand's files are served by one route with the file's name.
@Suite(.timeLimit(.minutes(2))) struct KioskRoutesDocTests {
    /// The registered routes, each path with its content hash written `<hash>`.
    static func registered() throws -> Set<String> {
        var fixture = try KioskFixture()
        fixture.staff = KioskStaffPageTests.FakeStaff()
        let router = try KioskApplication.router(backend: fixture.backend, settings: fixture.settings, staff: fixture.staff, logger: Logger(label: "routes"))
        return Set(router.routes.map { "\($0.method.rawValue) \(hashed($0.path.description))" })
    }

    /// `/assets/kiosk.3f9a0c1b.css` → `/assets/kiosk.<hash>.css`.
    static func hashed(_ path: String) -> String {
        path.replacing(/\.[0-9a-f]{8,}\./, with: ".<hash>.")
    }

    /// The routes in the first column of the "## Routes" table: `METHOD /path` starts a run, a
    /// further `/path` takes the same method, a further `.ext` the previous path with another extension.
    static func documented() throws -> Set<String> {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("doc/kiosk.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Routes\n") else { return [] }
        let section = text[start.upperBound...].prefix { _ in true }.split(separator: "\n## ", maxSplits: 1).first ?? ""
        var routes = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            var method = "", last = ""
            for (index, token) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                let words = token.split(separator: " ")
                if words.count == 2, ["GET", "POST"].contains(String(words[0])), words[1].hasPrefix("/") {
                    (method, last) = (String(words[0]), String(words[1]))
                } else if token.hasPrefix("/"), !method.isEmpty {
                    last = String(token)
                } else if token.hasPrefix("."), !last.isEmpty, let dot = last.lastIndex(of: ".") {
                    last = String(last[..<dot]) + token
                } else {
                    continue
                }
                routes.insert("\(method) \(last)")
            }
        }
        return routes
    }

    @Test func everyRouteIsInTheTableAndEveryRowIsARoute() throws {
        let registered = try Self.registered()
        let documented = try Self.documented()
        #expect(registered.count >= 15, "\(registered)")
        // The brand's files share one route: a documented brand path counts for it.
        let brand = "GET /brand/{file}"
        let documentedBrand = documented.filter { $0.hasPrefix("GET /brand/") }
        let missing = registered.subtracting(documented).filter { $0 != brand || documentedBrand.isEmpty }
        #expect(missing.isEmpty, "registered but not in doc/kiosk.md's route table: \(missing.sorted())")
        let extra = documented.subtracting(registered).filter { !($0.hasPrefix("GET /brand/") && registered.contains(brand)) }
        #expect(extra.isEmpty, "in doc/kiosk.md's route table but not registered: \(extra.sorted())")
    }
}
