public import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Validation

/// Answering the current form: typed words (the control API) or a form's entry (the kiosk),
/// each read against the form asked, with one rule for an answer with nothing in it
/// (`Form.blankAnswer`), then the form's rules and screening. Like every decision of a
/// session, nothing changes here: the events returned are journaled, then applied.
extension Session {
    /// What answering the current form with the typed `words` leads to: they are read by
    /// `InputParser` (choices by value or position, several per word for a checkbox).
    /// - Returns: `.rejected` with the message to show, or `.accepted` with the events to journal.
    public func answer(_ words: [String], at time: Date, newKey: @autoclosure () -> UUID = UUID()) -> AnswerDecision {
        guard let form = currentForm else { return .notAsking(stateDescription) }
        if let blank = form.blankAnswer(nothingChosen: words.allSatisfy(\.isBlank), emptyEntry: false) {
            return decide(blank, for: form, at: time, newKey: newKey())
        }
        let value: AnswerValue
        do {
            value = try InputParser.parse(words, for: form)
        } catch {
            return .rejected(form: form.name, message: error.message, reason: .unreadable)
        }
        return decide(value, for: form, at: time, newKey: newKey())
    }

    /// What answering the current form with what was entered on it leads to: the entry is read
    /// as it was posted (exact option values), and a form posted empty skips an optional question.
    /// - Returns: `.rejected` with the message to show, or `.accepted` with the events to journal.
    public func answer(_ entry: FormEntry, at time: Date, newKey: @autoclosure () -> UUID = UUID()) -> AnswerDecision {
        guard let form = currentForm else { return .notAsking(stateDescription) }
        if let blank = form.blankAnswer(nothingChosen: entry.nothingChosen, emptyEntry: entry.isBlank) {
            return decide(blank, for: form, at: time, newKey: newKey())
        }
        let value: AnswerValue
        do {
            value = try entry.answer(for: form)
        } catch {
            return .rejected(form: form.name, message: error.message, reason: .unreadable)
        }
        return decide(value, for: form, at: time, newKey: newKey())
    }

    /// An answer with nothing in it: skipped, or missing.
    private func decide(_ blank: BlankAnswer, for form: Form, at time: Date, newKey: @autoclosure () -> UUID) -> AnswerDecision {
        switch blank {
        case .skip: skip(at: time, newKey: newKey())
        case .missing: .rejected(form: form.name, message: ValidationFailure.requiredMessage, reason: .missing)
        }
    }

    /// An answer read from the input: checked by the form's rules, then screened.
    private func decide(_ value: AnswerValue, for form: Form, at time: Date, newKey: @autoclosure () -> UUID) -> AnswerDecision {
        if let failure = AnswerValidator.check(value, for: form, earlierAnswers: allAnswers) {
            return .rejected(form: form.name, message: failure.message, reason: failure.ruleIndex == nil ? .missing : .rule)
        }
        var events: [SessionEvent] = [.answerAccepted(session: id, form: form.name, value: value)]
        var answers = allAnswers
        answers[form.name] = value
        if questionnaire.screeningResult(for: answers) != nil {
            events.append(.closed(session: id, outcome: .noTarget, at: time))
        } else if position + 1 >= questionnaire.forms.count {
            events.append(.stageCompleted(session: id, stage: stage, idempotencyKey: newKey(), at: time))
        }
        return .accepted(events)
    }
}
