import Mustache

// The staff screen's and the text size control's values, answered through `MustacheParent` as
// the other page models are (PageModels+Mustache.swift).

extension TextSizeControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "label": self.label
        case "options": self.options
        default: nil
        }
    }
}

extension TextSizeControl.Option: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "step": self.step
        case "glyph": self.glyph
        case "name": self.name
        default: nil
        }
    }
}

extension KioskRenderer.StaffPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "w": self.w
        case "csrf": self.csrf
        case "flash": self.flash
        case "askPin": self.askPin
        case "glance": self.glance
        default: nil
        }
    }
}

extension KioskRenderer.Glance: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "sending": self.sending
        case "today": self.today
        case "kiosk": self.kiosk
        case "problems": self.problems
        case "inService": self.inService
        case "hasSurveys": self.hasSurveys
        case "surveys": self.surveys
        default: nil
        }
    }
}

extension KioskRenderer.StaffSurveyOption: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "stage": self.stage
        case "title": self.title
        case "current": self.current
        default: nil
        }
    }
}

extension KioskRenderer.StaffTexts: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "staffTitle": self.staffTitle
        case "pinLabel": self.pinLabel
        case "enter": self.enter
        case "cancel": self.cancel
        case "done": self.done
        case "sending": self.sending
        case "today": self.today
        case "kiosk": self.kiosk
        case "sendNow": self.sendNow
        case "takeOutOfService": self.takeOutOfService
        case "putBackInService": self.putBackInService
        case "messageLabel": self.messageLabel
        case "switchSurvey": self.switchSurvey
        case "surveyLabel": self.surveyLabel
        case "leaveHint": self.leaveHint
        default: nil
        }
    }
}
