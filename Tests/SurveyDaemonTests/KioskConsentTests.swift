import ControlAPI
import Entities
import Foundation
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Logging
import MockServer
import Storage
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The kiosk's consent notice in the daemon: its files (read at start, refused naming the setting
/// and the path, read again on SIGHUP), the version journaled with the session and sent as
/// `Survey-Consent`, and a refusal that keeps nothing but a count.
@Suite(.timeLimit(.minutes(5))) struct KioskConsentTests {
    static let korean = "# 설문 참여 동의\n목적: 음료 선호 조사.\n\n- 수집 항목: 이름, 이메일, 나이\n"
    static let english = "# Before you start\nWe ask about the drinks you like.\n\n- Collected: your name, e-mail and age\n"

    /// Two notice files in `dir`.
    static func files(in dir: TemporaryDirectory, korean: String = korean) throws -> (ko: String, en: String) {
        let ko = dir.appending("consent.ko.md"), en = dir.appending("consent.en.md")
        try Data(korean.utf8).write(to: ko)
        try Data(english.utf8).write(to: en)
        return (ko.path, en.path)
    }

    @Test func noticeFilesAreReadWithTheirVersionsAndRefusedNamingSettingAndPath() throws {
        let dir = try TemporaryDirectory(prefix: "cn")
        defer { dir.remove() }
        let (ko, en) = try Self.files(in: dir)
        var configuration = DaemonConfiguration(environment: ["HOME": "/h"], userID: 1)
        #expect(try KioskBrandFiles.consent(from: configuration).isEmpty, "unset: no consent asked")
        configuration.kioskConsentFileKorean = ko
        configuration.kioskConsentFileEnglish = en
        let notices = try KioskBrandFiles.consent(from: configuration)
        #expect(notices[.ko]?.version == ContentDigest.sha256Hex(Array(Self.korean.utf8), digits: 16))
        #expect(notices[.ko]?.version.count == 16 && notices[.ko]?.version != notices[.en]?.version)
        #expect(notices[.en]?.title == "Before you start")
        func refusal() -> String? {
            do {
                _ = try KioskBrandFiles.consent(from: configuration)
                return nil
            } catch {
                return error.description
            }
        }
        let missing = dir.appending("none.md").path
        configuration.kioskConsentFileEnglish = missing
        #expect(refusal() == "surveyd configuration: kioskConsentFileEnglish: the consent notice \(missing) does not exist; give the path of a UTF-8 text or Markdown file, or leave the setting out")
        configuration.kioskConsentFileEnglish = dir.path
        #expect(refusal() == "surveyd configuration: kioskConsentFileEnglish: the consent notice \(dir.path) is a directory; give the path of a UTF-8 text or Markdown file")
        let unreadable = dir.appending("locked.md")
        try Data("x".utf8).write(to: unreadable)
        chmod(unreadable.path, 0)
        configuration.kioskConsentFileEnglish = unreadable.path
        if getuid() != 0 {
            #expect(refusal()?.hasPrefix("surveyd configuration: kioskConsentFileEnglish: the consent notice \(unreadable.path) cannot be read") == true, "\(refusal() ?? "taken")")
        }
        let empty = dir.appending("empty.md")
        try Data("\n \n".utf8).write(to: empty)
        configuration.kioskConsentFileEnglish = empty.path
        #expect(refusal()?.hasPrefix("surveyd configuration: kioskConsentFileEnglish: the consent notice \(empty.path) is empty") == true)
        // A notice for one language the kiosk offers but not the other: refused.
        configuration.kioskConsentFileEnglish = nil
        #expect(refusal()?.hasPrefix("surveyd configuration: kioskConsentFileEnglish: the kiosk asks for consent but kioskConsentFileEnglish is not set, and it offers en") == true)
        configuration.kioskLanguages = "ko"
        #expect(refusal() == nil, "a kiosk that offers Korean only needs the Korean notice only")
    }

    @Test func aMissingNoticeStopsTheStartNamingTheSetting() async throws {
        let dir = try TemporaryDirectory(prefix: "cs")
        defer { dir.remove() }
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskConsentFileKorean] = dir.appending("gone.md").path
            flags[\.kioskConsentFileEnglish] = dir.appending("gone.md").path
        }
        do {
            let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
            await daemon.close()
            Issue.record("the daemon started without its consent notice")
        } catch {
            #expect("\(error)".contains("kioskConsentFileKorean: the consent notice \(dir.appending("gone.md").path) does not exist"), "\(error)")
        }
    }

    /// Through the pages of a whole daemon: one respondent agrees and answers (the upload carries
    /// the version), one declines (no session, a count), then the notice changes on SIGHUP.
    @Test func theVersionAgreedToIsJournaledAndSentAndADeclineIsOnlyCounted() async throws {
        let dir = try TemporaryDirectory(prefix: "ce")
        defer { dir.remove() }
        let quiet = {
            var logger = Logger(label: "mock")
            logger.logLevel = .critical
            return logger
        }()
        let record = dir.appending("record.jsonl")
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock, recordFile: record), logger: quiet)
        let (ko, en) = try Self.files(in: dir)
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { flags in
            flags[\.deliveryWaitSeconds] = 0
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskConsentFileKorean] = ko
            flags[\.kioskConsentFileEnglish] = en
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: quiet)
        let (running, started) = await InProcessDaemon.start(daemon)
        defer { running.cancel() }
        try #require(started != nil, "the daemon stopped before it was ready")
        let brand = try #require(daemon.kiosk?.brand)
        let version = try #require(brand.brand.consent[.en]?.version)
        let router = try KioskApplication.router(
            backend: SessionKioskBackend(sessions: daemon.sessions), settings: KioskSettings(titles: [.en: "Drinks"], defaultLanguage: .en),
            brand: brand, logger: quiet)
        let declinedEvents = Mutex(0)
        let daemonEvents = await daemon.sessions.metrics.events
        let watcher = Task {
            for await event in daemonEvents.subscribe() where event.type == .consentDeclined {
                declinedEvents.withLock { $0 += 1 }
            }
        }
        defer { watcher.cancel() }
        try await Application(router: router).test(.router) { client in
            let agreeing = TestBrowser(client)
            let notice = try await agreeing.start(.en)
            #expect(notice.redirects == ["/consent"])
            // The notice changes (SIGHUP) while this respondent reads it: what they saw is recorded.
            try Data("# Changed\nA new notice.\n".utf8).write(to: URL(fileURLWithPath: en))
            let reloader = ConfigurationReloader(current: configuration, daemon: daemon, logLevel: DaemonLogLevel(.info), logger: quiet) { () async throws(ConfigurationError) in configuration }
            _ = await reloader.reload()
            let changed = try #require(brand.brand.consent[.en]?.version)
            #expect(changed != version)
            var page = try await agreeing.post("/consent", [("csrf", notice.hidden("csrf", in: "consent-form") ?? ""), ("version", version), ("choice", "agree")])
            #expect(page.redirects == ["/question"])
            for value in ["Kim", "kim@example.org", "kim@example.org", "30", "2"] {
                page = try await agreeing.answer(value)
            }
            #expect(page.redirects == ["/end"], "\(page.body.prefix(400))")

            let declining = TestBrowser(client)
            let second = try await declining.start(.en)
            #expect(second.contains("Changed"), "the next respondent reads the new notice")
            let declined = try await declining.post("/consent", [("csrf", second.hidden("csrf", in: "consent-form") ?? ""), ("version", changed), ("choice", "decline")])
            #expect(declined.redirects == ["/declined"])
        }
        // The agreement is journaled with the session, in the same record as its start.
        let history = await daemon.sessions.history
        #expect(history.count == 1, "the respondent who declined has no session")
        let events = try #require(history.values.first)
        #expect(events.prefix(2).map { if case .consentGiven(_, let v) = $0 { v } else { nil } } == [nil, version])
        // The upload carries it.
        let delivered = await eventually {
            let lines = (try? String(contentsOf: record, encoding: .utf8))?.split(separator: "\n") ?? []
            return lines.compactMap { try? JSONDecoder().decode(RecordedSubmission.self, from: Data($0.utf8)) }.contains { $0.consent == version }
        }
        #expect(delivered, "no upload with Survey-Consent: \(version): \((try? String(contentsOf: record, encoding: .utf8)) ?? "no record")")
        // The decline is counted: the metric, the event, nothing else.
        let metrics = String(decoding: try await daemon.backend.metrics(), as: UTF8.self)
        #expect(metrics.contains("surveyd_kiosk_consent_declined_total 1"), "\(metrics)")
        #expect(await eventually { declinedEvents.withLock { $0 } == 1 })
        running.cancel()
        _ = await running.result
        try await mock.stop()
    }

    @Test func aRestartKeepsTheVersionTheSessionAgreedTo() async throws {
        let dir = try TemporaryDirectory(prefix: "cr")
        defer { dir.remove() }
        var quiet = Logger(label: "mock")
        quiet.logLevel = .critical
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: quiet)
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)")
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: quiet)
        let session = try await daemon.sessions.start(stage: nil, language: "en", consent: "0123456789abcdef")
        #expect(session.consent == "0123456789abcdef")
        let plain = try await daemon.sessions.start(stage: nil, language: "en")
        #expect(plain.consent == nil)
        await daemon.close()
        // Opening the state directory again replays the journal.
        let again = try await Daemon(configuration: configuration, version: "test", logger: quiet)
        let restored = await again.sessions.sessions
        #expect(restored[session.id]?.consent == "0123456789abcdef")
        #expect(restored[plain.id] != nil && restored[plain.id]?.consent == nil)
        await again.close()
        try await mock.stop()
    }

    @Test func theTodayCountsCountDeclines() throws {
        let dir = try TemporaryDirectory(prefix: "ct")
        defer { dir.remove() }
        let counter = KioskTodayCounter(directory: dir.path, events: DaemonEvents(), logger: Logger(label: "t"))
        #expect(counter.count(DaemonEvent(.consentDeclined)) != nil)
        #expect(counter.count(DaemonEvent(.consentDeclined)) != nil)
        #expect(counter.today.declined == 2)
        // A record written before consent was asked reads as none declined.
        let old = try JSONDecoder().decode(KioskTodayCounter.Record.self, from: Data(#"{"day":"2026-11-28","started":1,"completed":1,"screenedOut":0,"abandoned":0}"#.utf8))
        #expect(old.declined == nil && old.started == 1)
    }
}
