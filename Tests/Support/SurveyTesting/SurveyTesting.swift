/// SurveyTesting: support code shared by the test targets, never linked into an app.
///
/// It locates the package's `mock/` fixtures and built executables and makes short-lived
/// temporary directories; child processes, each with a hard deadline so that no test can hang or
/// leak one, come from ProcessTesting, which it re-exports.

public import Foundation
@_exported import ProcessTesting

/// Paths inside this package, found from this source file's location.
public enum PackagePaths {
    /// The package root (the folder holding `Package.swift`).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/Support/SurveyTesting/SurveyTesting.swift -> package root
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// The project's fixtures folder, `mock/`.
    public static var mock: URL { root.appendingPathComponent("mock", isDirectory: true) }

    /// A fixture file under `mock/`, e.g. `fixture("questions/common.en.json")`.
    public static func fixture(_ relativePath: String) -> URL {
        mock.appendingPathComponent(relativePath)
    }

    /// The folder holding the built products of the running test binary
    /// (`.build/debug` or `.build/release`): the test executable sits in it.
    public static var productsDirectory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe)
        // On Linux the test binary is `<products>/<package>PackageTests.xctest`.
        url.deleteLastPathComponent()
        return url
    }

    /// A built executable of this package, e.g. `executable("surveyctl")`.
    public static func executable(_ name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }
}

/// A fresh private directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL
    public var path: String { url.path }

    /// Creates a new empty directory whose name starts with `prefix`.
    /// Names are kept short so that Unix socket paths inside it fit in `sun_path`.
    public init(prefix: String = "sv") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        let name = "\(prefix)-\(UUID().uuidString.prefix(8))"
        url = base.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
