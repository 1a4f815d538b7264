// The real processes of one walk: the mock survey server and surveyd as built, in one temporary
// directory, and what each step does to them. Every process has a deadline; `finish()` stops them.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting

/// A walk's processes and files.
final class WalkWorld: @unchecked Sendable {
    let dir: TemporaryDirectory
    let clock: WalkClock?
    /// The folder of the built surveyd and mock-survey-server.
    let binaries: URL
    var mock: BackgroundProcess?
    var daemon: BackgroundProcess?
    var port = 0
    /// The kiosk pages' URL of the running daemon.
    var kioskURL = ""
    /// Why the daemon last refused to start (on a full disk).
    var daemonRefusal = ""
    var model = WalkModel()
    /// How many keys were made (key file names).
    var keysMade = 0
    /// How long each process may live.
    let deadline: Duration

    /// Whether the state directory is a tmpfs of its own (where mounting is allowed), which the
    /// disk steps fill and free.
    let ownFileSystem: Bool

    init(clock: WalkClock?, binaries: URL, deadline: Duration, ownFileSystem: Bool) throws {
        self.clock = clock
        self.binaries = binaries
        self.deadline = deadline
        dir = try TemporaryDirectory(prefix: "walk")
        self.ownFileSystem = ownFileSystem
        try write(model.fileToken, to: tokenFile)
        if ownFileSystem {
            try FileManager.default.createDirectory(atPath: dir.path + "/state", withIntermediateDirectories: true)
            do {
                try Tmpfs.mount(size: "8m", at: dir.path + "/state")
            } catch {
                dir.remove()
                throw error
            }
        }
    }

    var filler: String { state + "/filler" }

    /// Fills the state directory's file system with `filler` until the system says ENOSPC.
    func fillFileSystem() throws {
        guard let handle = FileHandle(forWritingAtPath: filler) ?? (FileManager.default.createFile(atPath: filler, contents: nil) ? FileHandle(forWritingAtPath: filler) : nil) else {
            throw WalkError("cannot create \(filler)")
        }
        defer { try? handle.close() }
        let chunk = Data(count: 64 << 10)
        for _ in 0 ..< 1024 {
            do { try handle.write(contentsOf: chunk) } catch { break }
        }
        for _ in 0 ..< 4096 {
            do { try handle.write(contentsOf: Data(count: 512)) } catch { break }
        }
    }

    var socket: String { dir.path + "/d.sock" }
    var state: String { dir.path + "/state" }
    var record: String { dir.path + "/record.jsonl" }
    var tokenFile: String { dir.path + "/token" }

    // MARK: The survey server

    func startMock() async throws {
        let mock = try await BackgroundProcess.start(
            binaries.appendingPathComponent("mock-survey-server"),
            ["--fixtures", PackagePaths.mock.path, "--port", String(port), "--record", record], deadline: deadline)
        let line = try await mock.waitForLine(containing: "listening on")
        port = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        guard port > 0 else { throw WalkError("the mock survey server printed no port: \(line)") }
        self.mock = mock
        try await applyFaults()
    }

    func stopMock() async {
        await mock?.stop()
        mock = nil
    }

    /// Sends the model's faults and token to the mock server.
    func applyFaults() async throws {
        guard mock != nil else { return }
        var members = ["\"requiredToken\": \"\(model.serverToken)\""]
        if !model.faults.isEmpty { members.append(model.faults) }
        let reply = try await LoopbackHTTP.request(port: port, method: "POST", target: "/admin/faults", body: "{" + members.joined(separator: ", ") + "}", deadline: 10)
        guard reply.status == 200 else { throw WalkError("the mock server refused the faults {\(members.joined(separator: ", "))}: \(reply.status) \(reply.bodyText)") }
    }

    // MARK: The daemon

    func startDaemon() async throws {
        var arguments = [
            "--server-url", "http://127.0.0.1:\(port)", "--socket", socket, "--state-dir", state,
            "--delivery-wait", "0", "--token-file", tokenFile, "--idle-timeout", "604800",
            "--kiosk-listen", "127.0.0.1:0",
        ]
        if let current = model.keys.last {
            arguments += ["--encryption-key-file", current]
            let old = model.keys.dropLast()
            if !old.isEmpty { arguments += ["--encryption-old-key-files", old.joined(separator: ",")] }
        }
        var environment = ["SURVEYD_BACKOFF_BASE": "0.2", "SURVEYD_BACKOFF_CAP": "1", "SURVEYD_PROBE_INTERVAL_CAP": "2"]
        if let clock { environment.merge(clock.environment(for: dir.path)) { $1 } }
        let daemon = try await BackgroundProcess.start(binaries.appendingPathComponent("surveyd"), arguments, environment: environment, deadline: deadline)
        self.daemon = daemon
        do {
            let line = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true, timeout: .seconds(30))
            kioskURL = line.split(separator: " ").first { $0.hasPrefix("kiosk=") }.map { String($0.dropFirst("kiosk=".count)) } ?? ""
        } catch {
            throw WalkFinding("the daemon did not start (exit \(daemon.status.map(String.init) ?? "none yet")): \(Self.tail(daemon.errorOutput))")
        }
    }

    /// Stops the daemon: SIGKILL when `unclean`, else SIGTERM and its exit.
    func stopDaemon(unclean: Bool) async throws {
        guard let daemon, daemon.isRunning else {
            self.daemon = nil
            return
        }
        if unclean {
            await daemon.stop(signal: SIGKILL, grace: .seconds(10))
        } else {
            let status = await daemon.stop(signal: SIGTERM, grace: .seconds(20))
            if status != 0 { throw WalkFinding("a clean stop exited \(status): \(Self.tail(daemon.errorOutput))") }
        }
        self.daemon = nil
    }

    func finish() async {
        await daemon?.stop(signal: SIGKILL, grace: .seconds(5))
        await mock?.stop()
        if ownFileSystem { umount2(state, Int32(MNT_DETACH)) }
        dir.remove()
    }

    // MARK: Keys, tokens, files

    /// A new key file (32 bytes drawn from `random`, owner-only).
    func newKey(random: inout SplitMix) throws -> String {
        keysMade += 1
        let path = dir.path + "/key-\(keysMade)"
        let bytes = (0 ..< 32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        return path
    }

    func write(_ text: String, to path: String) throws {
        let next = path + ".next"
        try Data(text.utf8).write(to: URL(fileURLWithPath: next))
        guard rename(next, path) == 0 else { throw WalkError("cannot rename \(next): errno \(errno)") }
    }

    /// A torn frame after the last record of the newest segment of each journal.
    func tearNewestSegments(bytes count: Int, random: inout SplitMix) throws {
        for journal in ["sessions", "queue"] {
            let directory = state + "/" + journal
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }.sorted()
            guard let newest = names.last else { continue }
            let path = directory + "/" + newest
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let end = Self.recordsEnd(data)
            let torn = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next() | 1) }
            // Written in place, as the cut write was: the rest of the file stays as it is.
            guard let handle = FileHandle(forWritingAtPath: path) else { throw WalkError("cannot open \(path) to tear it") }
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(end))
            do {
                try handle.write(contentsOf: Data(torn))
            } catch let error as CocoaError where error.code == .fileWriteOutOfSpace {
                // A full file system: the cut write could not have been written either.
            }
        }
    }

    /// Where the frames of a segment end (doc/journal-format.md, "Record frame"): after the
    /// encryption header when there is one, frame after frame while each begins with the magic
    /// and lies inside the bytes. Not where the last non-zero byte is: a sealed record may end in
    /// zeros, and a torn frame written over them would damage an acknowledged record.
    static func recordsEnd(_ data: [UInt8]) -> Int {
        let frame: [UInt8] = [0x53, 0x56, 0x53, 0x31]
        var offset = data.starts(with: [0x53, 0x56, 0x45, 0x31]) ? 48 : 0
        while offset + 21 <= data.count, Array(data[offset ..< offset + 4]) == frame {
            let length = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            guard offset + 21 + length <= data.count else { break }
            offset += 21 + length
        }
        return min(offset, data.count)
    }

    /// The files set aside unread in the journals (`*.unlisted`).
    func unlistedFiles() -> [String] {
        ["sessions", "queue"].flatMap { journal in
            ((try? FileManager.default.contentsOfDirectory(atPath: state + "/" + journal)) ?? []).filter { $0.hasSuffix(".unlisted") }.map { journal + "/" + $0 }
        }.sorted()
    }

    // MARK: The control API

    /// A control request; its JSON object reply (or `[:]`) and status.
    func control(_ method: String, _ target: String, _ body: [String: Any]? = nil) async throws -> (status: Int, json: [String: Any]) {
        let text = try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let reply: UnixHTTP.Reply
        do {
            reply = try await UnixHTTP.request(socket: socket, method: method, target: target, body: text, deadline: 20)
        } catch {
            throw WalkFinding("\(method) \(target) got no reply: \(error); the daemon said: \(Self.tail(daemon?.errorOutput ?? ""))")
        }
        let json = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:]
        return (reply.status, json)
    }

    /// The ids of the open sessions.
    func openSessions() async throws -> Set<String> {
        let reply = try await UnixHTTP.request(socket: socket, method: "GET", target: "/v1/sessions", deadline: 20)
        let json = try? JSONSerialization.jsonObject(with: reply.body)
        let list = (json as? [[String: Any]]) ?? ((json as? [String: Any])?["sessions"] as? [[String: Any]]) ?? []
        return Set(list.compactMap { $0["id"] as? String })
    }

    /// The submissions the server recorded.
    func records() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: record, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    static func tail(_ text: String, lines: Int = 12) -> String {
        text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}

/// Something the walk could not do (its tools failed): not a finding about the daemon.
public struct WalkError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A promise the daemon broke, as the walk's model says.
public struct WalkFinding: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
