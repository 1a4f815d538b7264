import Foundation
import SurveyTesting
import Testing

/// The BoringSSL calls `BoringAEAD.h` declares (for the journal's record cipher) are the ones
/// swift-crypto's copy of BoringSSL defines, with the same signatures: a C compiler reads both
/// declarations of each function in one file, and a mismatch is a conflict it refuses. Without
/// this check, a swift-crypto whose functions changed would compile, link and corrupt memory.
/// Where the compiler or the checkout is missing the suite is skipped, saying so, except under
/// `CI=true`, where it fails (``RequiredTools``).
@Suite(.timeLimit(.minutes(5)), .enabled(Comment(rawValue: AEADHeaders.tools.skipReason), { try AEADHeaders.tools.mayRun() }))
struct BoringAEADHeaderTests {

    /// Compiles (syntax only) swift-crypto's declarations, then ours with its opaque types named
    /// as swift-crypto's, then `extra`; returns the compiler's result.
    static func check(_ extra: String = "") async throws -> ProcessResult {
        let dir = try TemporaryDirectory(prefix: "aead")
        defer { dir.remove() }
        let source = dir.path + "/check.c"
        try """
        #include "CCryptoBoringSSL_aead.h"
        #include "CCryptoBoringSSL_err.h"
        #define boring_aead evp_aead_st
        #define boring_aead_ctx evp_aead_ctx_st
        #include "BoringAEAD.h"
        \(extra)
        """.write(toFile: source, atomically: true, encoding: .utf8)
        return try await runProcess(try #require(AEADHeaders.compiler), ["-fsyntax-only", "-Werror", "-I", try #require(AEADHeaders.crypto).path, "-I", AEADHeaders.ours.path, source], deadline: .seconds(60))
    }

    @Test func ourDeclarationsMatchSwiftCryptosHeader() async throws {
        let result = try await Self.check()
        #expect(result.status == 0, "BoringAEAD.h no longer matches swift-crypto's BoringSSL: \(result.stderr)")
    }

    /// The check can fail: a declaration that differs from the real one is refused.
    @Test func aDeclarationThatDiffersIsRefused() async throws {
        let result = try await Self.check("int CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(const struct boring_aead_ctx *ctx, uint8_t *out, size_t nonce_len);")
        #expect(result.status != 0 && result.stderr.contains("CCryptoBoringSSL_EVP_AEAD_CTX_open_gather"), "\(result.stderr)")
    }
}

/// Where the compiler and the two headers are.
enum AEADHeaders {
    static let compiler: URL? = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    /// swift-crypto's BoringSSL headers, in the package's checkout.
    static let crypto: URL? = {
        let include = PackagePaths.root.appendingPathComponent(".build/checkouts/swift-crypto/Sources/CCryptoBoringSSL/include")
        return FileManager.default.fileExists(atPath: include.appendingPathComponent("CCryptoBoringSSL_aead.h").path) ? include : nil
    }()
    static let ours = PackagePaths.root.appendingPathComponent("Modules/BoringAEAD/include")
    /// The compiler and swift-crypto's header, as the test needs them.
    static let tools = RequiredTools(
        "a C compiler (cc) and swift-crypto's checkout under .build/checkouts",
        executables: [compiler?.path ?? "/usr/bin/cc"],
        files: [PackagePaths.root.appendingPathComponent(".build/checkouts/swift-crypto/Sources/CCryptoBoringSSL/include/CCryptoBoringSSL_aead.h").path],
        install: "install a C compiler (apt-get install gcc) and run swift build, which checks swift-crypto out")
}
