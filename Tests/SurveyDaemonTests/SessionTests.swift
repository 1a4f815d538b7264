import Entities
import Foundation
import Logging
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct SessionTests {
    let common: Questionnaire
    let stage1: Questionnaire
    let stage2: Questionnaire
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        common = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        stage1 = try Questionnaire.decode(response: try Fixtures.data("questions/1.en.json"), stage: "1", knownAnswerNames: ["email"])
        stage2 = try Questionnaire.decode(response: try Fixtures.data("questions/2.en.json"), stage: "2")
    }

    func newSession(_ q: Questionnaire? = nil) -> Session {
        Session(id: UUID(), stage: (q ?? common).stage, language: "en", definitionHash: "h1", questionnaire: q ?? common, startedAt: start)
    }

    /// Answers the current form and applies the events; returns them.
    @discardableResult
    func answer(_ session: inout Session, _ words: String..., key: UUID = UUID()) throws -> [SessionEvent] {
        switch session.answer(words, at: start, newKey: key) {
        case .accepted(let events):
            for event in events { try session.apply(event) }
            return events
        case .rejected(let form, let message, _):
            Issue.record("\(form) rejected \(words): \(message)")
            return []
        case .notAsking(let why):
            Issue.record("not asking: \(why)")
            return []
        }
    }

    @Test func walksTheCommonStageAndCompletesIt() throws {
        var session = newSession()
        #expect(session.currentForm?.name == "name")
        #expect(session.progress == (1, 5))
        try answer(&session, "Kim", "Chul")
        try answer(&session, "kim.cs@gmail.com")
        try answer(&session, "kim.cs@gmail.com")
        #expect(session.progress == (4, 5))
        try answer(&session, "30")
        let key = UUID()
        let events = try answer(&session, "5", key: key)
        #expect(events.count == 2)
        #expect(events.last == .stageCompleted(session: session.id, stage: "common", idempotencyKey: key, at: start))
        #expect(session.state == .awaitingDelivery(idempotencyKey: key))
        #expect(session.currentForm == nil)
        #expect(String(decoding: session.upload.encoded(), as: UTF8.self)
            == #"{"answers":{"age":30,"email":"kim.cs@gmail.com","emailConfirm":"kim.cs@gmail.com","like":5,"name":"Kim Chul"}}"#)
    }

    @Test func rejectedAnswersKeepTheSameQuestion() throws {
        let session = newSession()
        #expect(session.answer(["K"], at: start) == .rejected(form: "name", message: "Your name must be 2 to 20 characters long.", reason: .rule))
        #expect(session.answer([], at: start) == .rejected(form: "name", message: "Please enter your name.", reason: .rule))
        #expect(session.skip(at: start) == .rejected(form: "name", message: "This question needs an answer.", reason: .missing))
        #expect(session.currentForm?.name == "name")
    }

    @Test func typedInputErrorsListWhatIsAccepted() throws {
        var session = newSession()
        try answer(&session, "Kim")
        try answer(&session, "kim.cs@gmail.com")
        guard case .rejected(_, let message, .rule) = session.answer(["other@gmail.com"], at: start) else {
            Issue.record("mismatched e-mail accepted"); return
        }
        #expect(message == "The e-mail addresses do not match.")
        try answer(&session, "kim.cs@gmail.com")
        #expect(session.answer(["thirty"], at: start) == .rejected(form: "age", message: #""thirty" is not a number. Accepted: a number such as 42 or 3.5"#, reason: .unreadable))
    }

    @Test func screeningClosesTheSessionAsNoTarget() throws {
        var session = newSession()
        try answer(&session, "Kim")
        try answer(&session, "kim.cs@gmail.com")
        try answer(&session, "kim.cs@gmail.com")
        let events = try answer(&session, "18")
        #expect(events.last == .closed(session: session.id, outcome: .noTarget, at: start))
        #expect(session.state == .closed(.noTarget))
        #expect(!session.isOpen)
        guard case .notAsking = session.answer(["5"], at: start) else { Issue.record("closed session asked"); return }
    }

    @Test func optionalFormsCanBeSkippedAndAreLeftOutOfTheUpload() throws {
        var session = newSession(stage1)
        try answer(&session, "extra", "craft", "cider")
        try answer(&session, "home", "bar")
        guard case .accepted(let skip) = session.skip(at: start) else { Issue.record("skip refused"); return }
        for event in skip { try session.apply(event) }
        try answer(&session, "beer and chicken")
        guard case .accepted(let last) = session.skip(at: start) else { Issue.record("skip refused"); return }
        for event in last { try session.apply(event) }
        guard case .awaitingDelivery = session.state else { Issue.record("not complete"); return }
        #expect(session.upload.answers == ["type": .string("craft cider"), "occasions": .list(["home", "bar"]), "pairing": .string("beer and chicken")])
    }

    @Test func followUpStageKeepsEarlierAnswersForReferences() throws {
        var session = newSession()
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], ["2"]] {
            guard case .accepted(let events) = session.answer(words, at: start) else { Issue.record("refused \(words)"); return }
            for event in events { try session.apply(event) }
        }
        let next = SessionEvent.stageStarted(session: session.id, stage: "2", language: "en", definitionHash: "h2", at: start)
        try session.startStage(next, questionnaire: stage2)
        #expect(session.stage == "2")
        #expect(session.stageAnswers.isEmpty)
        #expect(session.allAnswers["email"] == .string("kim.cs@gmail.com"))
        #expect(session.completedStages == ["common"])
        #expect(session.progress == (1, 4))
        let events = try answer(&session, "no")
        #expect(events.last == .closed(session: session.id, outcome: .noTarget, at: start))
    }

    @Test func replayingTheEventsRebuildsTheSameSession() throws {
        var live = newSession()
        var journal: [SessionEvent] = []
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]] {
            guard case .accepted(let events) = live.answer(words, at: start) else { Issue.record("refused"); return }
            for event in events { try live.apply(event) }
            journal += events
        }
        let encoded = try JSONEncoder().encode(journal)
        let decoded = try JSONDecoder().decode([SessionEvent].self, from: encoded)
        var rebuilt = Session(id: live.id, stage: "common", language: "en", definitionHash: "h1", questionnaire: common, startedAt: start)
        for event in decoded { try rebuilt.apply(event) }
        #expect(rebuilt == live)
        #expect(rebuilt.currentForm?.name == "age")
    }

    /// The session journal's records are written by hand (`SessionEvent.write`): they must be
    /// the JSON a default `JSONEncoder` gives (the same members and values; the encoder orders
    /// keys at random without `.sortedKeys`, this writer in declaration order), and decode to the
    /// same events.
    @Test func journalRecordsAreTheEncodersJSON() async throws {
        let id = UUID()
        let odd = "a/b \"q\" \\ \n\t\u{1} 한글 😀"
        let at = Date(timeIntervalSinceReferenceDate: 785_000_000.123456)
        var events: [SessionEvent] = [
            .stageStarted(session: id, stage: "common", language: "en", definitionHash: "sha256:ab/cd", at: at),
            .stageStarted(session: id, stage: odd, language: "ko", definitionHash: "", at: Date(timeIntervalSinceReferenceDate: 0)),
            .answerAccepted(session: id, form: "name", value: .string(odd)),
            .answerAccepted(session: id, form: "age", value: .number(30)),
            .answerAccepted(session: id, form: "height", value: .number(172.5)),
            .answerAccepted(session: id, form: "like", value: .integer(5)),
            .answerAccepted(session: id, form: "occasions", value: .list(["home", odd])),
            .answerAccepted(session: id, form: "none", value: .list([])),
            .answerSkipped(session: id, form: odd),
            .wentBack(session: id, form: odd, at: at.addingTimeInterval(0.25)),
            .stageCompleted(session: id, stage: "common", idempotencyKey: UUID(), at: at.addingTimeInterval(0.5)),
            .followUpNamed(session: id, stage: "1", at: Date(timeIntervalSinceReferenceDate: -1.25)),
            .answersErased(session: id, position: 3),
            .consentGiven(session: id, version: "0123456789abcdef"),
            .consentGiven(session: id, version: odd),
        ]
        events += SessionOutcome.allCases.map { SessionEvent.closed(session: id, outcome: $0, at: at) }
        let record = StoredSessionJournal.record(events)
        let written = try JSONSerialization.jsonObject(with: Data(record)) as? NSArray
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(events)) as? NSArray
        #expect(written != nil && written == encoded)
        // Keys in declaration order, `/` escaped as the default encoder escapes it.
        var first = JSONOutput(escapesSlashes: true)
        events[0].write(to: &first)
        #expect(String(decoding: first.bytes, as: UTF8.self) == #"{"stageStarted":{"session":"\#(id.uuidString)","stage":"common","language":"en","definitionHash":"sha256:ab\/cd","at":785000000.123456}}"#)
        // Numbers as the encoder writes them: a whole number without ".0".
        #expect(String(decoding: StoredSessionJournal.record([events[3]]), as: UTF8.self) == #"[{"answerAccepted":{"session":"\#(id.uuidString)","form":"age","value":30}}]"#)
        // Through a journal on disk and back, as a restart reads them.
        let directory = try TemporaryDirectory(prefix: "sj")
        defer { directory.remove() }
        let journal = try Journal(directory: directory.path, logger: Logger(label: "test"))
        try await StoredSessionJournal(journal: journal).append(Array(events[..<5]))
        try await StoredSessionJournal(journal: journal).append(Array(events[5...]))
        await journal.close()
        let reopened = try Journal(directory: directory.path, logger: Logger(label: "test"))
        defer { reopened.close(then: {}) }
        let decoded = try await StoredSessionJournal(journal: reopened).replay()
        #expect(decoded.count == events.count)
        // A whole number decodes as an integer answer, as it did from the encoder's JSON.
        #expect(decoded[3] == .answerAccepted(session: id, form: "age", value: .integer(30)))
        #expect(decoded.enumerated().allSatisfy { $0.offset == 3 || $0.element == events[$0.offset] })
    }

    @Test func eventsThatDoNotFitAreRefused() throws {
        var session = newSession()
        #expect(throws: SessionReplayError.self) { try session.apply(.answerAccepted(session: session.id, form: "age", value: .number(3))) }
        #expect(throws: SessionReplayError.self) { try session.apply(.answerAccepted(session: UUID(), form: "name", value: .string("x"))) }
        #expect(throws: SessionReplayError.self) { try session.apply(.stageCompleted(session: session.id, stage: "common", idempotencyKey: UUID(), at: start)) }
        let next = SessionEvent.stageStarted(session: session.id, stage: "1", language: "en", definitionHash: "h", at: start)
        #expect(throws: SessionReplayError.self) { try session.startStage(next, questionnaire: stage1) }
        #expect(session == newSessionWithID(session.id))
    }

    func newSessionWithID(_ id: UUID) -> Session {
        Session(id: id, stage: "common", language: "en", definitionHash: "h1", questionnaire: common, startedAt: start)
    }
}
