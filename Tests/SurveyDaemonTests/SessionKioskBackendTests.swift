import Entities
import Foundation
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Logging
import Storage
@testable import SurveyDaemon
import Synchronization
import Testing

/// The kiosk pages over the daemon's own session manager: what a respondent does in the browser
/// is journaled and queued as the control API's calls are.
extension SessionManagerTests {
    /// Runs `test` against the kiosk's router over `manager`.
    func kiosk<Value>(_ manager: SessionManager, _ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        var logger = Logger(label: "kiosk")
        logger.logLevel = .critical
        let router = try KioskApplication.router(
            backend: SessionKioskBackend(sessions: manager),
            settings: KioskSettings(titles: [.en: "Drinks survey"], defaultLanguage: .en),
            logger: logger)
        return try await Application(router: router).test(.router, test)
    }

    /// The stage `common` goes on to stage 1, which ends the survey.
    func deliverRouted(to manager: SessionManager) {
        deliverImmediately(to: manager) { $0.stage == "common" ? "1" : nil }
    }

    func journaledEvents() -> [SessionEvent] { journal.events.withLock { $0 } }

    @Test(.timeLimit(.minutes(5))) func aRespondentWalksEveryStageInTheBrowser() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverRouted(to: m)
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            let first = try await browser.start(.en)
            #expect(first.question == "name" && first.position == 1)
            #expect(first.contains("Please enter your name."))
            let end = try await SurveyWalk.finish(browser)
            #expect(end.redirects.last == "/end")
            #expect(end.contains("<h1>Thank you!</h1>"))
        }
        let uploads = queue.submissions.withLock { $0 }
        #expect(uploads.map(\.stage) == ["common", "1"])
        #expect(uploads.allSatisfy { $0.language == "en" })
        #expect(await m.openSessions().isEmpty)
        let session = try #require(journaledEvents().first?.session)
        #expect(try await m.session(id: session.uuidString).state == .closed(.thanks))
    }

    @Test(.timeLimit(.minutes(5))) func aRejectedAnswerIsShownWithItsRuleAndNotJournaled() async throws {
        let m = manager()
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            try await browser.start(.en)
            let page = try await browser.answer("K")
            #expect(page.question == "name")
            #expect(page.error == "Your name must be 2 to 20 characters long.")
            #expect(page.contains("value=\"K\""), "the respondent's input is kept")
        }
        #expect(journaledAnswers().isEmpty)
    }

    @Test(.timeLimit(.minutes(5))) func backInTheBrowserIsJournaledAndTheNewAnswerIsUploaded() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverImmediately(to: m) { _ in nil }
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("emailConfirm", in: browser)
            let back = try await browser.back()
            #expect(back.question == "email" && back.position == 2)
            #expect(back.contains("value=\"minji@example.com\""), "the earlier answer is shown")
            try await browser.answer("changed@example.com")
            // The confirmation is checked against the changed address.
            #expect(try await browser.answer("minji@example.com").error == "The e-mail addresses do not match.")
            try await browser.answer("changed@example.com")
            try await browser.answer("30")
            let end = try await browser.answer("5")
            #expect(end.contains("<h1>Thank you!</h1>"))
        }
        #expect(journaledEvents().contains { if case .wentBack(_, "email", _) = $0 { true } else { false } })
        let body = try #require(queue.submissions.withLock { $0 }.first?.body)
        let answers = try JSONSerialization.jsonObject(with: body) as? [String: [String: Any]]
        #expect(answers?["answers"]?["email"] as? String == "changed@example.com")
        #expect(answers?["answers"]?["emailConfirm"] as? String == "changed@example.com")
    }

    @Test(.timeLimit(.minutes(5))) func anUndeliveredStageEndsWithTheSavedScreen() async throws {
        let m = manager(deliveryWait: .milliseconds(20))
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            try await browser.start(.en)
            let end = try await SurveyWalk.finish(browser)
            #expect(end.redirects.last == "/end")
            #expect(end.contains("Your answers are saved"))
        }
        #expect(queue.submissions.withLock { $0 }.map(\.stage) == ["common"])
    }

    @Test(.timeLimit(.minutes(5))) func theScreenedOutEndIsNeutral() async throws {
        let m = manager()
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("age", in: browser)
            let end = try await browser.answer("15")
            #expect(end.contains("<h1>Thank you, that is all.</h1>"))
        }
        #expect(queue.submissions.withLock { $0 }.isEmpty)
    }

    @Test(.timeLimit(.minutes(5))) func aResetAbandonsTheSessionInTheManager() async throws {
        let m = manager()
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("email", in: browser)
            let welcome = try await browser.post("/reset", [("csrf", page.csrf ?? "")])
            #expect(welcome.redirects == ["/"])
            #expect(!welcome.contains("Minji"))
        }
        let closed = journaledEvents().compactMap { if case .closed(_, let outcome, _) = $0 { outcome } else { nil } }
        #expect(closed == [.abandoned])
        #expect(await m.openSessions().isEmpty)
    }

    @Test(.timeLimit(.minutes(5))) func nothingChosenOnARequiredChoiceAsksAgainAndRecordsNothing() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverRouted(to: m)
        try await kiosk(m) { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("like", in: browser)
            let again = try await browser.answer([String]())
            #expect(again.question == "like" && again.position == page.position)
            #expect(again.error != nil)
        }
        #expect(!journaledAnswers().contains("like"))
    }

    @Test(.timeLimit(.minutes(5))) func twoBrowsersHaveTwoSessions() async throws {
        let m = manager()
        try await kiosk(m) { client in
            let first = TestBrowser(client)
            let second = TestBrowser(client)
            try await first.start(.en)
            try await second.start(.ko)
            try await first.answer("Kim Minji")
            #expect(first.page.question == "email")
            #expect(try await second.open("/question").question == "name")
            // The second browser's token and the first one's form do not mix.
            second.cookie = first.cookie
            #expect(try await second.open("/question").question == "email")
        }
        let languages = await m.openSessions().map(\.language).sorted()
        #expect(languages == ["en", "ko"])
    }
}
