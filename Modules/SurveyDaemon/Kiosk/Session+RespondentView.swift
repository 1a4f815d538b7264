import Entities

import Kiosk

extension Session {
    /// The session as the respondent's pages show it: the question in the session's language
    /// with the answer given to it before going back, progress in the stage, and the outcome.
    var respondentView: RespondentView {
        let state: RespondentView.State
        switch self.state {
        case .asking:
            if let form = currentForm {
                state = .asking(KioskQuestion(form: form, currentValue: stageAnswers[form.name]))
            } else {
                state = .waiting
            }
        case .awaitingDelivery:
            state = .waiting
        case .closed(let outcome):
            state = .closed(KioskOutcome(outcome))
        }
        let (current, total) = progress
        return RespondentView(
            session: KioskSessionID(id.text(uppercase: false)),
            stage: stage,
            language: KioskLanguage(rawValue: language) ?? .ko,
            state: state,
            position: current,
            total: total,
            canGoBack: canGoBack
        )
    }
}

extension KioskOutcome {
    init(_ outcome: SessionOutcome) {
        switch outcome {
        case .thanks: self = .thanks
        case .noTarget: self = .noTarget
        case .queued: self = .queued
        case .abandoned: self = .abandoned
        }
    }
}
