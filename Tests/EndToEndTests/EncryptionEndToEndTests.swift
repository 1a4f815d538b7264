#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// surveyd with a key, as built: what it writes is encrypted, `status` says so, and every refusal
/// exits 78 naming the file and what is wrong, with the state directory byte for byte as it was.
@Suite(.serialized, .timeLimit(.minutes(10))) struct EncryptionEndToEndTests {
    static func writeKey(_ path: String, fill: UInt8, mode: mode_t = 0o600) throws {
        try Data((0..<32).map { UInt8(truncatingIfNeeded: Int($0) * 13 + Int(fill)) }).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    @Test func refusalsExit78NamingTheFileAndLeaveTheStateAsItWas() async throws {
        let stack = try Stack()
        try await stack.startMock()
        let key = stack.dir.path + "/key"
        try Self.writeKey(key, fill: 1)
        try await stack.startDaemon(["--encryption-key-file", key])
        let status = try await stack.status()
        let encryption = try #require(status["encryption"] as? [String: Any])
        #expect(encryption["state"] as? String == "on")
        let fingerprint = try #require(encryption["fingerprint"] as? String)
        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("encryption: on (key \(fingerprint))"), "\(text.stdout)")
        #expect(!text.stdout.contains("010e1b"), "nothing of the key is shown")
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer([["Quentinmarrow"]])
        _ = await stack.daemon?.stop()
        stack.daemon = nil
        #expect(DiskSearch.firstFile(under: stack.state, holding: "Quentinmarrow") == nil)
        let before = try DirectorySnapshot.take(stack.state)

        let other = stack.dir.path + "/other"
        try Self.writeKey(other, fill: 2)
        let loose = stack.dir.path + "/loose"
        try Self.writeKey(loose, fill: 1, mode: 0o644)
        let short = stack.dir.path + "/short"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: short))
        chmod(short, 0o600)
        let cases: [(flags: [String], says: [String])] = [
            (["--encryption-key-file", other], [stack.state + "/", "segment-", "fingerprint \(fingerprint)"]),
            ([], [stack.state + "/", "no encryption key"]),
            (["--encryption-key-file", loose], [loose, "chmod 600"]),
            (["--encryption-key-file", short], [short, "3 bytes"]),
            (["--encryption-key-file", stack.dir.path + "/missing"], [stack.dir.path + "/missing", "does not exist"]),
            (["--encryption-key-file", other, "--encryption-old-key-files", short], [short]),
        ]
        for (flags, says) in cases {
            let result = try await runProcess(
                stack.daemonBinary,
                ["--server-url", stack.serverURL, "--socket", stack.socket, "--state-dir", stack.state] + flags,
                environment: ["HOME": stack.dir.path], deadline: .seconds(30))
            #expect(result.status == 78, "\(flags): \(result.status) \(result.stderr)")
            for part in says { #expect(result.stderr.contains(part), "\(flags): \(result.stderr)") }
            #expect(try DirectorySnapshot.take(stack.state) == before, "\(flags) changed the state directory")
        }
        // The right key opens it again, with what it held.
        try await stack.startDaemon(["--encryption-key-file", key])
        let sessions = try #require(try await stack.status()["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        await stack.finish()
    }
}
