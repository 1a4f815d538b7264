import Foundation
import SurveyTesting
import Testing

/// Decisions the product makes in one place stay there, checked on the sources: a second copy
/// would drift from the first at the next change.
@Suite(.timeLimit(.minutes(5))) struct OneDecisionTests {
    /// The Swift sources under `folder` (`Modules`, `Apps`), by path from the repository's root.
    static func sources(_ folders: [String] = ["Modules", "Apps"]) throws -> [(path: String, text: String)] {
        try folders.flatMap { folder in
            let root = PackagePaths.root.appending(path: folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            return try files.sorted().map { ("\(folder)/\($0)", try String(contentsOf: root.appending(path: $0), encoding: .utf8)) }
        }
    }

    /// The places in the sources whose code (not a comment) contains `text`.
    static func places(_ text: String, in sources: [(path: String, text: String)]) -> [String] {
        sources.flatMap { source in
            source.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { !$0.element.trimmingCharacters(in: .whitespaces).hasPrefix("//") && $0.element.contains(text) }
                .map { "\(source.path):\($0.offset + 1)" }
        }
    }

    /// The operator's advice about the network (a captive portal, a redirect, a token refused in
    /// an odd form, plain http) is worded in Networking's `OperatorAdvice` only.
    @Test func theOperatorsAdviceIsWordedOnce() throws {
        let sources = try Self.sources()
        #expect(sources.count > 100, "the sources were found under \(PackagePaths.root.path)")
        for phrase in ["use another network", "set serverURL to", "use an https server URL", "refusing the token in a form", "let NTP set it"] {
            let found = Self.places(phrase, in: sources)
            #expect(found == found.filter { $0.hasPrefix("Modules/Networking/OperatorAdvice.swift:") } && found.count == 1, "\"\(phrase)\" is worded in \(found): say it through OperatorAdvice")
        }
    }

    /// The survey kiosk respondents start is looked up in the staff desk's state only
    /// (`State.chosen`), and nothing outside the desk reaches into that state.
    @Test func theChosenSurveyIsLookedUpOnce() throws {
        let sources = try Self.sources()
        let lookups = Self.places("surveys.first", in: sources)
        #expect(lookups.count == 1 && lookups.allSatisfy { $0.hasPrefix("Modules/SurveyDaemon/Kiosk/Staff/KioskStaffDesk.swift:") }, "\(lookups)")
        let reaching = Self.places("desk.state", in: sources) + Self.places("staffDesk?.state", in: sources)
        #expect(reaching.isEmpty, "reach the staff desk through its methods, not its state: \(reaching)")
    }

    /// The journal's record cipher is BoringSSL's calls: swift-crypto's `ChaChaPoly` is the
    /// tests' reference for the bytes, not a second cipher of the product.
    @Test func theRecordCipherIsOne() throws {
        let found = Self.places("ChaChaPoly.", in: try Self.sources(["Modules", "Apps", "Tests/Benchmarks"]))
        #expect(found.isEmpty, "\(found)")
    }

    /// `Stack`, which every end-to-end suite uses, is in a file of its own.
    @Test func theEndToEndStackHasAFileOfItsOwn() throws {
        let found = Self.places("final class Stack", in: try Self.sources(["Tests/EndToEndTests"]))
            .filter { !$0.hasPrefix("Tests/EndToEndTests/OneDecisionTests.swift:") }
        #expect(found == ["Tests/EndToEndTests/Stack.swift:10"], "\(found)")
    }
}
