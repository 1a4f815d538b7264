import Foundation

/// The pages' own texts, in each language. Texts around a number are split in two
/// (`…Before`, `…After`) so that the number can sit in its own element for the countdowns.
struct KioskStrings: Sendable {
    var languageName: String
    var language: String
    var start: String
    var startHint: String
    var next: String
    var back: String
    var skip: String
    var optional: String
    /// "Question {k} of {n}".
    var progress: String
    var specify: String
    var missing: String
    var notANumber: String
    var chooseOrSpecify: String
    var checkAnswer: String
    var thanksTitle: String
    var thanksBody: String
    var noTargetTitle: String
    var noTargetBody: String
    var queuedTitle: String
    var queuedBody: String
    var returnBefore: String
    var returnAfter: String
    var done: String
    var stillThere: String
    var idleBefore: String
    var idleAfter: String
    var keepGoing: String
    var waitingTitle: String
    var waitingBody: String
    var expiredTitle: String
    var expiredBody: String
    var unavailableTitle: String
    var unavailableBody: String
    var badRequestTitle: String
    var notFoundTitle: String
    var notFoundBody: String
    var startOver: String
    var consentTitle: String
    var consentAgree: String
    var consentDecline: String
    var declinedTitle: String
    var declinedBody: String

    static func of(_ language: KioskLanguage) -> KioskStrings {
        switch language {
        case .ko: ko
        case .en: en
        }
    }

    /// "Question k of n".
    func progress(_ position: Int, of total: Int) -> String {
        progress.replacingOccurrences(of: "{k}", with: String(position)).replacingOccurrences(of: "{n}", with: String(total))
    }

    static let en = KioskStrings(
        languageName: "English",
        language: "Language",
        start: "Start",
        startHint: "Touch Start to begin.",
        next: "Next",
        back: "Back",
        skip: "Skip",
        optional: "Optional",
        progress: "Question {k} of {n}",
        specify: "Please specify",
        missing: "Please answer this question.",
        notANumber: "Please enter a number.",
        chooseOrSpecify: "Please choose an answer, or write your own in the box.",
        checkAnswer: "Please check your answer.",
        thanksTitle: "Thank you!",
        thanksBody: "Your answers have been recorded.",
        noTargetTitle: "Thank you, that is all.",
        noTargetBody: "We appreciate your time.",
        queuedTitle: "Thank you!",
        queuedBody: "Your answers are saved.",
        returnBefore: "Back to the start in ",
        returnAfter: " seconds.",
        done: "Done",
        stillThere: "Are you still there?",
        idleBefore: "The survey will restart in ",
        idleAfter: " seconds.",
        keepGoing: "Continue",
        waitingTitle: "One moment…",
        waitingBody: "Your answers are being saved.",
        expiredTitle: "This page has expired.",
        expiredBody: "Please start again.",
        unavailableTitle: "The survey is not available right now.",
        unavailableBody: "Please ask a member of staff.",
        badRequestTitle: "Something went wrong.",
        notFoundTitle: "Page not found.",
        notFoundBody: "Please start again.",
        startOver: "Back to the start",
        consentTitle: "Before you start",
        consentAgree: "I agree",
        consentDecline: "No, thanks",
        declinedTitle: "Thank you.",
        declinedBody: "Nothing you did here has been kept."
    )

    static let ko = KioskStrings(
        languageName: "한국어",
        language: "언어",
        start: "시작하기",
        startHint: "시작하기를 눌러 주세요.",
        next: "다음",
        back: "이전",
        skip: "건너뛰기",
        optional: "선택",
        progress: "전체 {n}문항 중 {k}번째",
        specify: "직접 입력",
        missing: "이 질문에 답해 주세요.",
        notANumber: "숫자를 입력해 주세요.",
        chooseOrSpecify: "답을 고르거나 칸에 직접 적어 주세요.",
        checkAnswer: "답변을 다시 확인해 주세요.",
        thanksTitle: "감사합니다!",
        thanksBody: "응답이 기록되었습니다.",
        noTargetTitle: "감사합니다. 설문이 끝났습니다.",
        noTargetBody: "시간 내어 주셔서 고맙습니다.",
        queuedTitle: "감사합니다!",
        queuedBody: "응답이 저장되었습니다.",
        returnBefore: "",
        returnAfter: "초 후 처음 화면으로 돌아갑니다.",
        done: "처음으로",
        stillThere: "아직 계신가요?",
        idleBefore: "",
        idleAfter: "초 후 설문이 처음부터 다시 시작됩니다.",
        keepGoing: "계속하기",
        waitingTitle: "잠시만 기다려 주세요…",
        waitingBody: "응답을 저장하고 있습니다.",
        expiredTitle: "페이지가 만료되었습니다.",
        expiredBody: "처음부터 다시 시작해 주세요.",
        unavailableTitle: "지금은 설문을 진행할 수 없습니다.",
        unavailableBody: "담당자에게 문의해 주세요.",
        badRequestTitle: "문제가 발생했습니다.",
        notFoundTitle: "페이지를 찾을 수 없습니다.",
        notFoundBody: "처음부터 다시 시작해 주세요.",
        startOver: "처음으로",
        consentTitle: "시작하기 전에",
        consentAgree: "동의합니다",
        consentDecline: "동의하지 않습니다",
        declinedTitle: "감사합니다.",
        declinedBody: "여기에서 하신 것은 아무것도 저장되지 않았습니다."
    )
}
