public import ControlAPI
public import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Validation

extension Session {
    /// The session as the control API shows it.
    public func view() -> SessionView {
        let stateName: String
        var outcome: String?
        switch state {
        case .asking: stateName = "asking"
        case .awaitingDelivery: stateName = "awaiting_delivery"
        case .closed(let o):
            stateName = "closed"
            outcome = o.rawValue
        }
        let progress = progress
        return SessionView(
            id: id.text(uppercase: false),
            stage: stage,
            lang: language,
            state: stateName,
            outcome: outcome,
            current: progress.current,
            total: progress.total,
            question: currentForm.map(QuestionView.init(form:)),
            completedStages: completedStages,
            followUp: followUp,
            lastActivity: lastActivity.iso8601Seconds
        )
    }
}

extension QuestionView {
    /// The view of a form: its text, type and what it accepts.
    public init(form: Form) {
        self.init(
            name: form.name,
            text: form.question,
            type: form.type.rawValue,
            required: form.isRequired,
            accepts: InputParser.acceptedInput(for: form),
            options: form.input.options.enumerated().map {
                OptionView(position: $0.offset + 1, value: $0.element.value, label: $0.element.label, isDefault: $0.element.checked)
            }
        )
    }
}
