import Foundation
import SurveyTesting
import Testing

/// `doc/architecture.md` draws which project module imports which: the drawing must be the
/// imports the sources make, arrow for arrow, so that it cannot drift from the code.
@Suite(.timeLimit(.minutes(10))) struct ArchitectureDocTests {
    /// The modules and apps of the drawing, by the name it gives them, and where their sources are.
    static let targets: [String: String] = {
        var targets: [String: String] = ["surveyd": "Apps/surveyd", "surveyctl": "Apps/surveyctl", "mock": "Apps/mock-survey-server"]
        for module in projectModules { targets[module] = "Modules/\(module)" }
        return targets
    }()

    /// The library modules the drawing covers: every folder of `Modules/` (the test support,
    /// which no app links, lives under `Tests/`).
    static var projectModules: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root.appending(path: "Modules").path)) ?? []
        return names.sorted()
    }

    struct Arrow: Hashable, CustomStringConvertible {
        var from: String
        var to: String
        var description: String { "\(from) --> \(to)" }
    }

    /// The arrows of the mermaid graph (`a[label] --> b`).
    static func drawn() throws -> Set<Arrow> {
        let text = try String(contentsOf: PackagePaths.root.appending(path: "doc/architecture.md"), encoding: .utf8)
        let graph = try #require(text.components(separatedBy: "```mermaid").dropFirst().first?.components(separatedBy: "```").first)
        var arrows = Set<Arrow>()
        for line in graph.split(separator: "\n") where line.contains("-->") {
            let ends = line.components(separatedBy: "-->").map { end in
                String(end.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
            }
            arrows.insert(Arrow(from: ends[0], to: ends[1]))
        }
        return arrows
    }

    /// The arrows the sources make: each `import` of another project module.
    static func imported() throws -> Set<Arrow> {
        let modules = Set(projectModules)
        var arrows = Set<Arrow>()
        for (name, folder) in targets {
            let root = PackagePaths.root.appending(path: folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    guard let module = importedModule(line) else { continue }
                    if module != name, modules.contains(module) { arrows.insert(Arrow(from: name, to: module)) }
                }
            }
        }
        return arrows
    }

    /// The module an `import` line names, whatever its attributes and access level
    /// (`@testable import X`, `public import X`, `package import X`, `import struct X.Y`).
    static func importedModule(_ line: Substring) -> String? {
        let words = line.split(separator: " ")
        let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || accessLevels.contains($0) }) else { return nil }
        let rest = words[(index + 1)...].drop { kinds.contains($0) }
        return rest.first.map { String($0.prefix { $0 != "." }) }
    }

    @Test func importLinesNameTheirModule() {
        #expect(Self.importedModule("import Storage") == "Storage")
        #expect(Self.importedModule("public import Entities") == "Entities")
        #expect(Self.importedModule("package import Kiosk") == "Kiosk")
        #expect(Self.importedModule("@testable internal import SurveyDaemon") == "SurveyDaemon")
        #expect(Self.importedModule("@preconcurrency public import struct Networking.SurveyClient") == "Networking")
        #expect(Self.importedModule("// import Storage") == nil)
        #expect(Self.importedModule("let important = 1") == nil)
    }

    @Test func theDrawingIsTheImports() throws {
        let drawn = try Self.drawn()
        let imported = try Self.imported()
        #expect(!imported.isEmpty)
        #expect(drawn.subtracting(imported).isEmpty, "drawn in doc/architecture.md but imported nowhere: \(drawn.subtracting(imported).sorted { $0.description < $1.description })")
        #expect(imported.subtracting(drawn).isEmpty, "imported but not drawn in doc/architecture.md: \(imported.subtracting(drawn).sorted { $0.description < $1.description })")
    }
}
