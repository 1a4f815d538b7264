import Mustache

// The values the templates read answer their keys through `MustacheParent` rather than through
// `Mirror`: swift-mustache looks a key up by reflecting the whole value and demangling the type of
// every stored property, on every lookup, which was most of the CPU time of a page. Each `switch`
// lists the stored properties of its type, by their names (a test compares them with `Mirror`).

extension PageFrame: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "lang": self.lang
        case "pageTitle": self.pageTitle
        case "css": self.css
        case "js": self.js
        case "keyboard": self.keyboard
        case "keyboardCSS": self.keyboardCSS
        case "keyboardJS": self.keyboardJS
        case "bodyClass": self.bodyClass
        case "idleSeconds": self.idleSeconds
        case "countdownSeconds": self.countdownSeconds
        case "returnSeconds": self.returnSeconds
        case "reload": self.reload
        case "noscriptRefresh": self.noscriptRefresh
        case "brandCSS": self.brandCSS
        case "staffHold": self.staffHold
        case "state": self.state
        case "textSize": self.textSize
        default: nil
        }
    }
}

extension Refresh: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "seconds": self.seconds
        case "url": self.url
        default: nil
        }
    }
}

extension WelcomePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "surveyTitle": self.surveyTitle
        case "logo": self.logo
        case "offersLanguages": self.offersLanguages
        case "languages": self.languages
        case "csrf": self.csrf
        case "chosenLanguage": self.chosenLanguage
        case "attract": self.attract
        default: nil
        }
    }
}

extension LanguageChoice: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "code": self.code
        case "name": self.name
        case "current": self.current
        default: nil
        }
    }
}

extension QuestionPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "progressText": self.progressText
        case "position": self.position
        case "total": self.total
        case "csrf": self.csrf
        case "name": self.name
        case "question": self.question
        case "isOptional": self.isOptional
        case "error": self.error
        case "text": self.text
        case "choices": self.choices
        case "scale": self.scale
        case "canGoBack": self.canGoBack
        case "canSkip": self.canSkip
        default: nil
        }
    }
}

extension TextControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "entered": self.entered
        case "placeholder": self.placeholder
        case "inputmode": self.inputmode
        default: nil
        }
    }
}

extension ChoiceControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "isCheckbox": self.isCheckbox
        case "options": self.options
        case "extraField": self.extraField
        default: nil
        }
    }
}

extension OptionControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "optionID": self.optionID
        case "inputType": self.inputType
        case "optionValue": self.optionValue
        case "optionLabel": self.optionLabel
        case "checked": self.checked
        case "takesFocus": self.takesFocus
        default: nil
        }
    }
}

extension ExtraField: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "extraText": self.extraText
        case "extraLabel": self.extraLabel
        case "extraFor": self.extraFor
        default: nil
        }
    }
}

extension ScaleControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "scores": self.scores
        case "hasLabels": self.hasLabels
        default: nil
        }
    }
}

extension ScoreControl: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "score": self.score
        case "scoreLabel": self.scoreLabel
        case "selected": self.selected
        case "scoreTakesFocus": self.scoreTakesFocus
        default: nil
        }
    }
}

extension EndPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "heading": self.heading
        case "message": self.message
        case "seconds": self.seconds
        default: nil
        }
    }
}

extension MessagePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "heading": self.heading
        case "message": self.message
        case "detail": self.detail
        case "showStartOver": self.showStartOver
        default: nil
        }
    }
}

extension KioskStrings: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "languageName": self.languageName
        case "language": self.language
        case "start": self.start
        case "startHint": self.startHint
        case "next": self.next
        case "back": self.back
        case "skip": self.skip
        case "optional": self.optional
        case "progress": self.progress
        case "specify": self.specify
        case "missing": self.missing
        case "notANumber": self.notANumber
        case "chooseOrSpecify": self.chooseOrSpecify
        case "checkAnswer": self.checkAnswer
        case "thanksTitle": self.thanksTitle
        case "thanksBody": self.thanksBody
        case "noTargetTitle": self.noTargetTitle
        case "noTargetBody": self.noTargetBody
        case "queuedTitle": self.queuedTitle
        case "queuedBody": self.queuedBody
        case "returnBefore": self.returnBefore
        case "returnAfter": self.returnAfter
        case "done": self.done
        case "stillThere": self.stillThere
        case "idleBefore": self.idleBefore
        case "idleAfter": self.idleAfter
        case "keepGoing": self.keepGoing
        case "waitingTitle": self.waitingTitle
        case "waitingBody": self.waitingBody
        case "expiredTitle": self.expiredTitle
        case "expiredBody": self.expiredBody
        case "unavailableTitle": self.unavailableTitle
        case "unavailableBody": self.unavailableBody
        case "badRequestTitle": self.badRequestTitle
        case "notFoundTitle": self.notFoundTitle
        case "notFoundBody": self.notFoundBody
        case "startOver": self.startOver
        case "consentTitle": self.consentTitle
        case "consentAgree": self.consentAgree
        case "consentDecline": self.consentDecline
        case "declinedTitle": self.declinedTitle
        case "declinedBody": self.declinedBody
        default: nil
        }
    }
}
