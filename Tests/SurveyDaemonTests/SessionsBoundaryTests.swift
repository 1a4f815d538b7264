import Foundation
import SurveyTesting
import Testing

/// The sessions (`Modules/SurveyDaemon/Sessions`) speak their own types: the control API and the
/// kiosk are front ends that map their requests to them (`SessionAnswer`, `SessionError`), so
/// neither module is imported there, nor is any of their types named.
@Suite(.timeLimit(.minutes(5))) struct SessionsBoundaryTests {
    static let edges = ["ControlAPI", "Kiosk"]

    /// The Swift files under `folder` of the package, with their text.
    static func sources(_ folder: String) throws -> [(path: String, text: String)] {
        let root = PackagePaths.root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.sorted().map { ("\(folder)/\($0)", try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The types a module declares at its top level as public.
    static func publicTypes(of module: String) throws -> Set<String> {
        var names = Set<String>()
        for (_, text) in try sources("Modules/\(module)") {
            for line in text.split(separator: "\n") where line.hasPrefix("public ") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
                guard let kind = words.firstIndex(where: { ["struct", "enum", "class", "protocol", "actor", "typealias"].contains($0) }), kind + 1 < words.count else { continue }
                names.insert(String(words[kind + 1]))
            }
        }
        return names
    }

    /// The module an `import` line names (`import X`, `public import X`, `@testable import X`).
    static func imported(_ line: Substring) -> String? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains($0) }), index + 1 < words.count else { return nil }
        return String(words[index + 1])
    }

    /// Every whole identifier of `text` (letters, digits, `_`).
    static func identifiers(_ text: String) -> Set<Substring> {
        Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") })
    }

    @Test func theSessionsImportNeitherFrontEnd() throws {
        let sessions = try Self.sources("Modules/SurveyDaemon/Sessions")
        #expect(sessions.count > 10, "the sessions' sources are found")
        for (path, text) in sessions {
            for line in text.split(separator: "\n") {
                guard let module = Self.imported(line) else { continue }
                #expect(!Self.edges.contains(module), "\(path) imports \(module): map the front end's types to the sessions' own at the edge (Control/, Kiosk/)")
            }
        }
    }

    @Test(arguments: edges) func theSessionsNameNoTypeOfAFrontEnd(_ edge: String) throws {
        let types = try Self.publicTypes(of: edge)
        #expect(types.count > 5, "\(edge)'s public types are found")
        for (path, text) in try Self.sources("Modules/SurveyDaemon/Sessions") {
            let named = Self.identifiers(text).filter { types.contains(String($0)) }
            #expect(named.isEmpty, "\(path) names \(edge)'s \(named.sorted().joined(separator: ", ")): give the sessions a type of their own and map to it at the edge")
        }
    }

    @Test func theImportsAreRecognised() {
        #expect(Self.imported("import ControlAPI") == "ControlAPI")
        #expect(Self.imported("public import Kiosk") == "Kiosk")
        #expect(Self.imported("@testable import ControlAPI") == "ControlAPI")
        #expect(Self.imported("// import ControlAPI") == nil)
    }
}
