public import Foundation

/// Loads the project's fixtures under `mock/`.
public enum Fixtures {
    /// The bytes of `mock/<relativePath>`.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: PackagePaths.fixture(relativePath))
    }

    /// The stages of the project's survey, as named in `mock/questions/`.
    public static let stages = ["common", "1", "2"]
    /// The languages every questionnaire fixture exists in.
    public static let languages = ["ko", "en"]

    /// Every questionnaire fixture path relative to `mock/`.
    public static var questionnairePaths: [String] {
        stages.flatMap { stage in languages.map { "questions/\(stage).\($0).json" } }
    }

    /// Every broken definition fixture, relative to `mock/`.
    public static func brokenPaths() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: PackagePaths.fixture("broken").path)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { "broken/\($0)" }
    }
}
