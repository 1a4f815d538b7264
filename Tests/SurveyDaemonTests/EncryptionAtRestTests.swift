import ControlAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Logging
import MockServer
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The whole daemon in process, with a key: after every answer of several respondents, given
/// through the control API and through the kiosk pages, no file of the state directory holds any
/// of their words. Without a key the same search finds them (the search can fail).
@Suite(.timeLimit(.minutes(5))) struct EncryptionAtRestTests {
    /// Words only these respondents type: names, e-mail addresses.
    static let respondents: [(name: String, email: String)] = [
        ("Zebulonquartz", "zebulon.quartz@example.org"),
        ("Marigoldvesper", "marigold.vesper@example.org"),
        ("Thaddeuswhorl", "thaddeus.whorl@example.org"),
        ("Ophelianimbus", "ophelia.nimbus@example.org"),
    ]

    @Test(arguments: [true, false])
    func noFileHoldsARespondentsWords(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory(prefix: "ea")
        defer { dir.remove() }
        var quiet = Logger(label: "mock")
        quiet.logLevel = .critical
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: quiet)
        let key = dir.appending("key").path
        if encrypted {
            try Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11) }).write(to: URL(fileURLWithPath: key))
            chmod(key, 0o600)
        }
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { flags in
            flags[\.deliveryWaitSeconds] = 0
            if encrypted { flags[\.encryptionKeyFile] = key }
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: quiet)
        let state = configuration.stateDirectory
        let typed = Mutex<[String]>([])
        let foundAny = Mutex(false)
        /// After each answer: no file holds any word typed so far (with a key).
        @Sendable func typing(_ value: String) throws {
            let words = typed.withLock { $0.append(value); return $0 }
            guard value.count > 5 else { return }
            for word in words where word.count > 5 {
                let file = DiskSearch.firstFile(under: state, holding: word)
                if encrypted { #expect(file == nil, "\(word) is in \(file ?? "")") }
                if file != nil { foundAny.withLock { $0 = true } }
            }
        }
        // Two respondents through the control API.
        for respondent in Self.respondents.prefix(2) {
            let session = try await daemon.backend.startSession(StartSessionRequest(lang: "en"))
            for value in [respondent.name, respondent.email, respondent.email, "30", "5"] {
                _ = try await daemon.backend.answer(AnswerRequest(session: session.id, values: [value]))
                try typing(value)
            }
        }
        // Two through the kiosk pages.
        let router = try KioskApplication.router(
            backend: SessionKioskBackend(sessions: daemon.sessions),
            settings: KioskSettings(titles: [.en: "Drinks survey"], defaultLanguage: .en), logger: quiet)
        for respondent in Self.respondents.suffix(2) {
            try await Application(router: router).test(.router) { client in
                let browser = TestBrowser(client)
                try await browser.start(.en)
                for value in [respondent.name, respondent.email, respondent.email, "30", "5"] {
                    try await browser.answer(value)
                    try typing(value)
                }
            }
        }
        let status = try await daemon.backend.status()
        let health = await daemon.backend.health()
        let metrics = String(decoding: try await daemon.backend.metrics(), as: UTF8.self)
        await daemon.close()
        try await mock.stop()
        #expect(status.queue.pending + status.queue.delivered >= 4)
        if encrypted {
            let fingerprint = try #require(status.encryption?.fingerprint)
            #expect(status.encryption?.state == "on" && fingerprint.count == 8)
            #expect(health.encryption == status.encryption)
            #expect(metrics.contains("surveyd_encryption_enabled 1"), "\(metrics)")
            #expect(Rendering.status(status).contains("encryption: on (key \(fingerprint))"))
        } else {
            #expect(foundAny.withLock { $0 }, "without a key the words are on disk: the search works")
            #expect(status.encryption?.state == "off")
            #expect(metrics.contains("surveyd_encryption_enabled 0"), "\(metrics)")
        }
    }
}

/// A state directory written without a key, started with one: what it holds stays readable, and
/// status counts the segments still in the clear.
@Suite(.timeLimit(.minutes(5))) struct EncryptionMigrationTests {
    @Test func aDirectoryWrittenInTheClearIsReadWithAKeyAndItsPlainSegmentsAreCounted() async throws {
        let dir = try TemporaryDirectory(prefix: "em")
        defer { dir.remove() }
        var quiet = Logger(label: "mock")
        quiet.logLevel = .critical
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: quiet)
        let plain = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)")
        let first = try await Daemon(configuration: plain, version: "test", logger: quiet)
        let session = try await first.backend.startSession(StartSessionRequest(lang: "en"))
        _ = try await first.backend.answer(AnswerRequest(session: session.id, values: ["Barnabyquill"]))
        #expect(try await first.backend.status().encryption == EncryptionView(state: "off", fingerprint: nil, oldKeySegments: 0, plainSegments: 0))
        await first.close()
        let key = dir.appending("key").path
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: key))
        chmod(key, 0o600)
        let keyed = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { $0[\.encryptionKeyFile] = key }
        let second = try await Daemon(configuration: keyed, version: "test", logger: quiet)
        let status = try await second.backend.status()
        await second.close()
        try await mock.stop()
        #expect(status.sessions.map(\.id) == [session.id], "the session written in the clear was read back")
        #expect(status.encryption?.state == "on")
        #expect((status.encryption?.plainSegments ?? 0) >= 1)
        #expect(Rendering.status(status).contains { $0.contains("still in the clear, from before encryption") })
    }

    @Test func statusSaysWhatIsLeftOfARotationOrAMigration() {
        let view = EncryptionView(state: "on", fingerprint: "0a1b2c3d", oldKeySegments: 2, plainSegments: 1)
        #expect(view.lines == [
            "encryption: on (key 0a1b2c3d)",
            "  2 segments still under an earlier key: keep encryptionOldKeyFiles until compaction has rewritten them",
            "  1 segment still in the clear, from before encryption: compaction rewrites them",
        ])
        #expect(EncryptionView(state: "off", fingerprint: nil, oldKeySegments: 0, plainSegments: 0).lines.first?.hasPrefix("encryption: off") == true)
    }
}

/// `surveyctl queue export` writes answers in the clear: the file it writes to is made owner-only.
@Suite(.timeLimit(.minutes(5))) struct OwnerOnlyOutputTests {
    @Test func aFileOpenToOthersIsMadeOwnerOnlyAndAPipeIsLeftAlone() throws {
        let dir = try TemporaryDirectory(prefix: "oo")
        defer { dir.remove() }
        let path = dir.appending("export.ndjson").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        fchmod(fd, 0o644)
        #expect(OwnerOnlyOutput.restrict(fd) == nil)
        var st = stat()
        #expect(fstat(fd, &st) == 0 && st.st_mode & 0o777 == 0o600)
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        #expect(OwnerOnlyOutput.restrict(pipeEnds[1]) == nil)
    }
}
