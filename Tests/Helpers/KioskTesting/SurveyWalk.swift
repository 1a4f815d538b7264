public import Kiosk

/// Valid answers to every question of the project's survey, for walking to a question.
public enum SurveyWalk {
    public struct Answer {
        public var values: [String]
        public var extra: String? = nil
    }

    /// `like` of 5 leads to stage 1, of 2 to stage 2 (`mock/routing.json`).
    public static func valid(_ question: String, toStage2: Bool = false) -> Answer? {
        switch question {
        case "name": Answer(values: ["Kim Minji"])
        case "email", "emailConfirm": Answer(values: ["minji@example.com"])
        case "age": Answer(values: ["30"])
        case "like": Answer(values: [toStage2 ? "2" : "5"])
        case "type": Answer(values: ["wine"])
        case "occasions": Answer(values: ["home"])
        case "glassesPerWeek": Answer(values: ["3"])
        case "pairing": Answer(values: ["Wine and cheese"])
        case "coupon": Answer(values: ["abc-12"])
        case "tried": Answer(values: ["yes"])
        case "reason": Answer(values: ["taste"])
        case "recommend": Answer(values: ["6"])
        case "consent": Answer(values: ["agree"])
        default: nil
        }
    }

    /// Starts a session and answers validly until `question` is asked.
    @discardableResult
    public static func reach(_ question: String, in browser: TestBrowser, language: KioskLanguage = .en, toStage2: Bool = false) async throws -> Page {
        var page = try await browser.start(language)
        for _ in 0..<20 {
            guard let current = page.question else { break }
            if current == question { return page }
            guard let answer = valid(current, toStage2: toStage2) else { break }
            page = try await browser.answer(answer.values, extra: answer.extra)
        }
        struct NotReached: Error, CustomStringConvertible {
            var question: String
            var page: String
            var description: String { "question \(question) was not reached; last page:\n\(page)" }
        }
        throw NotReached(question: question, page: page.body)
    }

    /// Answers validly until the session ends; returns the end screen.
    public static func finish(_ browser: TestBrowser, toStage2: Bool = false) async throws -> Page {
        var page = browser.page
        for _ in 0..<20 {
            guard let current = page.question, let answer = valid(current, toStage2: toStage2) else { return page }
            page = try await browser.answer(answer.values, extra: answer.extra)
        }
        return page
    }
}
