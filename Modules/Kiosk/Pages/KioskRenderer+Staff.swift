#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The staff screen (PIN pad, then the glance and the actions) and the respondent's
/// out-of-service and closed screens.
extension KioskRenderer {
    /// The staff screen's fixed texts, as the template reads them.
    struct StaffTexts: Sendable {
        var staffTitle, pinLabel, enter, cancel, done, sending, today, kiosk, sendNow: String
        var takeOutOfService, putBackInService, messageLabel, switchSurvey, surveyLabel, leaveHint: String

        init(_ w: StaffWords) {
            staffTitle = w.staffTitle
            pinLabel = w.pinLabel
            enter = w.enter
            cancel = w.cancel
            done = w.done
            sending = w.sending
            today = w.today
            kiosk = w.kiosk
            sendNow = w.sendNow
            takeOutOfService = w.takeOutOfService
            putBackInService = w.putBackInService
            messageLabel = w.messageLabel
            switchSurvey = w.switchSurvey
            surveyLabel = w.surveyLabel
            leaveHint = w.leaveHint
        }
    }

    struct StaffSurveyOption: Sendable {
        var stage: String
        var title: String
        var current: Bool
    }

    struct Glance: Sendable {
        var sending: [String]
        var today: String?
        var kiosk: [String]
        var problems: [String]
        var inService: Bool
        var hasSurveys: Bool
        var surveys: [StaffSurveyOption]
    }

    struct StaffPage: Sendable {
        var page: PageFrame
        var w: StaffTexts
        var csrf: String
        var flash: String?
        var askPin: Bool
        var glance: Glance?
    }

    /// The PIN pad (`glance` nil) or the staff screen. It goes back to the welcome screen after
    /// the staff screen's idle limit.
    func staff(language: KioskLanguage, csrf: String, flash: String?, glance: StaffGlance?, now: Date = Date()) -> String {
        let words = StaffWords(language: language)
        var frame = frame(language, title: words.staffTitle, bodyClass: "staff-page")
        frame.textSize = nil
        frame.reload = Refresh(seconds: Int(StaffSessions.idleLimit.components.seconds) + 1, url: "/")
        let model = glance.map { Self.glance($0, words: words, language: language, now: now) }
        return render(StaffPage(page: frame, w: StaffTexts(words), csrf: csrf, flash: flash, askPin: glance == nil, glance: model), "staff")
    }

    static func glance(_ g: StaffGlance, words: StaffWords, language: KioskLanguage, now: Date) -> Glance {
        var sending = [g.waiting == 0 ? words.allSent() : words.waiting(g.waiting, oldest: g.oldestWaitingSince.map { clock($0, now: now) })]
        sending.append(words.lastSent(g.lastSentAt.map { clock($0, now: now) }))
        sending.append(words.connectivity(g.connectivity))
        if let until = g.holdOffUntil { sending.append(words.holdOff(clock(until, now: now))) }
        if let reason = g.waitingReason, g.waiting > 0 { sending.append(words.why(reason)) }
        var problems = g.problems
        if g.tokenRefused { problems.insert(words.tokenRefused, at: 0) }
        var kiosk: [String] = []
        switch g.availability {
        case .open: kiosk.append(words.inServiceNow)
        case .outOfService(let message): kiosk.append(words.outOfServiceNow + (message.map { " “\($0)”" } ?? ""))
        case .closed: kiosk.append(words.closedNow)
        }
        if let survey = g.survey { kiosk.append(words.surveyLine(survey.title(for: language), stage: survey.stage, languages: g.languages)) }
        if let free = g.diskFreeBytes { kiosk.append(words.disk(free)) }
        if let encrypted = g.encrypted { kiosk.append(words.encryption(encrypted)) }
        kiosk.append(words.about(version: g.version, device: g.deviceId, uptime: uptime(g.uptimeSeconds)))
        let inService: Bool = if case .outOfService = g.availability { false } else { true }
        return Glance(
            sending: sending, today: g.today.map(words.todayLine), kiosk: kiosk, problems: problems, inService: inService,
            hasSurveys: g.surveys.count > 1,
            surveys: g.surveys.map { StaffSurveyOption(stage: $0.stage, title: $0.title(for: language), current: $0.stage == g.survey?.stage) })
    }

    /// `14:02` today, else `27 Nov 14:02`, in the machine's time zone.
    static func clock(_ date: Date, now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.month, .day, .hour, .minute], from: date)
        func two(_ n: Int?) -> String { (n ?? 0) < 10 ? "0\(n ?? 0)" : "\(n ?? 0)" }
        let time = "\(two(parts.hour)):\(two(parts.minute))"
        return calendar.isDate(date, inSameDayAs: now) ? time : "\(parts.day ?? 0)/\(parts.month ?? 0) \(time)"
    }

    static func uptime(_ seconds: Double) -> String {
        let total = Int(max(0, seconds))
        if total >= 86_400 { return "\(total / 86_400)d \(total / 3600 % 24)h" }
        if total >= 3600 { return "\(total / 3600)h \(total / 60 % 60)m" }
        return "\(total / 60)m"
    }

    /// The page for a client that may not use the staff screen: why, and what the operator can do.
    func staffRefused(language: KioskLanguage) -> String {
        let words = StaffWords(language: language)
        let page = MessagePage(
            page: frame(language, title: words.refusedTitle), s: KioskStrings.of(language), heading: words.refusedTitle,
            message: words.refusedBody, detail: words.refusedOperator, showStartOver: true)
        return render(page, "message")
    }

    /// The respondent's screen while the kiosk is out of service or closed: its script follows
    /// the kiosk back into service through the held `/state` request as soon as it changes
    /// (without scripts, within a minute); `state` is what the page shows (`data-state`).
    func unavailableScreen(_ availability: KioskAvailability, language: KioskLanguage, staffHold: Bool, state: String? = nil) -> String {
        let words = StaffWords(language: language)
        let (heading, body, detail): (String, String, String?) = switch availability {
        case .closed: (words.closedTitle, words.closedBody, nil)
        case .outOfService(let message): (words.outOfServiceTitle, words.outOfServiceBody, message)
        case .open: (words.inServiceNow, "", nil)
        }
        var frame = frame(language, title: heading)
        frame.noscriptRefresh = Refresh(seconds: 60, url: "/?lang=\(language.rawValue)")
        frame.state = state ?? availability.fingerprint
        frame.staffHold = staffHold ? "/staff" : nil
        let page = MessagePage(page: frame, s: KioskStrings.of(language), heading: heading, message: body, detail: detail, showStartOver: false)
        return render(page, "message")
    }
}
