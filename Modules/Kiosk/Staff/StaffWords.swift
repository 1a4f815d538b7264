#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entities

/// The staff screen's words, and the out-of-service and closed screens' words, per language.
/// The glance speaks plainly: no codes, no jargon.
struct StaffWords: Sendable {
    let language: KioskLanguage

    private func say(_ en: String, _ ko: String) -> String { language == .ko ? ko : en }

    var outOfServiceTitle: String { say("This kiosk is out of service", "이 키오스크는 지금 사용할 수 없습니다") }
    var outOfServiceBody: String { say("Please come back later.", "나중에 다시 이용해 주세요.") }
    var closedTitle: String { say("This kiosk is closed", "지금은 운영 시간이 아닙니다") }
    var closedBody: String { say("Please come back during opening hours.", "운영 시간에 다시 이용해 주세요.") }
    var staffTitle: String { say("Staff", "직원 메뉴") }
    var pinLabel: String { say("Staff PIN", "직원 PIN") }
    var enter: String { say("Enter", "확인") }
    var cancel: String { say("Cancel", "취소") }
    var done: String { say("Done", "완료") }
    func wrongPin(_ left: Int) -> String {
        say("Wrong PIN. \(left) more wrong PIN\(left == 1 ? "" : "s") will lock the staff screen.", "PIN이 틀렸습니다. \(left)번 더 틀리면 직원 메뉴가 잠깁니다.")
    }
    func locked(_ seconds: Int) -> String {
        let minutes = max(1, (seconds + 59) / 60)
        return say("Too many wrong PINs: the staff screen is locked for \(minutes) more minute\(minutes == 1 ? "" : "s"). An administrator can unlock it (surveyctl staff-pin unlock).",
                   "PIN이 여러 번 틀려 직원 메뉴가 \(minutes)분 동안 잠겼습니다. 관리자가 잠금을 풀 수 있습니다 (surveyctl staff-pin unlock).")
    }
    var refusedTitle: String { say("The staff screen works only on the kiosk itself", "직원 메뉴는 키오스크 본체에서만 쓸 수 있습니다") }
    var refusedBody: String {
        say("This device reaches the kiosk over the network without encryption (plain HTTP): the staff PIN and the staff screen would cross the network where others can read them, and anyone on it could lock the staff out with wrong PINs. Use the staff screen on the kiosk's own screen.",
            "이 기기는 암호화되지 않은 네트워크(HTTP)로 키오스크에 연결되어 있습니다. 직원 PIN과 직원 메뉴가 다른 사람이 볼 수 있는 네트워크를 지나게 되고, 네트워크의 누구나 틀린 PIN으로 직원 메뉴를 잠글 수 있습니다. 키오스크 본체의 화면에서 직원 메뉴를 이용해 주세요.")
    }
    var refusedOperator: String {
        say("For the operator: serve the pages to other machines only through a TLS proxy on the kiosk (kioskListen on loopback), or, on a network you trust, set kioskStaffPinOverPlainHTTP to allow (doc/security.md).",
            "운영자 안내: 다른 기기에는 키오스크의 TLS 프록시를 거쳐서만 페이지를 제공하거나 (kioskListen은 loopback), 믿을 수 있는 네트워크라면 kioskStaffPinOverPlainHTTP를 allow로 설정하세요 (doc/security.md).")
    }
    var busy: String { say("Checking another PIN; try again.", "다른 PIN을 확인하는 중입니다. 다시 시도해 주세요.") }
    var sending: String { say("Sending", "전송") }
    var today: String { say("Today", "오늘") }
    var kiosk: String { say("This kiosk", "이 키오스크") }
    var sendNow: String { say("Send now", "지금 전송") }
    var takeOutOfService: String { say("Take out of service", "사용 중지") }
    var putBackInService: String { say("Put back in service", "다시 사용") }
    var messageLabel: String { say("Message on the screen (optional)", "화면에 보일 안내 (선택)") }
    var switchSurvey: String { say("Switch survey", "설문 바꾸기") }
    var surveyLabel: String { say("Survey for the next respondent", "다음 응답자의 설문") }
    var leaveHint: String { say("The staff screen closes by itself after 60 seconds untouched.", "60초 동안 아무 조작이 없으면 직원 메뉴가 닫힙니다.") }

    func allSent() -> String { say("All answers have been sent.", "모든 응답이 전송되었습니다.") }
    func waiting(_ count: Int, oldest: String?) -> String {
        let since = oldest.map { say(", the oldest from \($0)", " (가장 오래된 것: \($0))") } ?? ""
        return say("\(count) survey\(count == 1 ? "" : "s") waiting to be sent\(since).", "전송을 기다리는 설문 \(count)건\(since).")
    }
    func lastSent(_ time: String?) -> String {
        time.map { say("Last sent: \($0).", "마지막 전송: \($0).") } ?? say("Nothing sent since the kiosk started.", "시작한 뒤 전송한 것이 없습니다.")
    }

    /// A connectivity state in plain words; an unknown state is named as it is.
    func connectivity(_ state: String) -> String {
        switch state {
        case "online": say("Network: the survey server answers.", "네트워크: 설문 서버와 연결되어 있습니다.")
        case "offline": say("Network: no connection to the survey server. Answers wait safely here and are sent when it is back.", "네트워크: 설문 서버에 연결되지 않습니다. 응답은 여기에 안전하게 보관되었다가 연결되면 전송됩니다.")
        case "portal": say("Network: something answers in the survey server's place (a Wi-Fi login page?). Log the kiosk in to the Wi-Fi.", "네트워크: 설문 서버 대신 다른 것이 응답합니다 (Wi-Fi 로그인 페이지?). 키오스크를 Wi-Fi에 로그인해 주세요.")
        case "unknown": say("Network: not checked yet.", "네트워크: 아직 확인하지 않았습니다.")
        default: say("Network: \(state).", "네트워크: \(state).")
        }
    }
    var tokenRefused: String { say("The survey server refuses this kiosk's key: call the administrator.", "설문 서버가 이 키오스크의 인증을 거부합니다. 관리자에게 연락해 주세요.") }
    func holdOff(_ until: String) -> String { say("The survey server asked to wait until \(until).", "설문 서버가 \(until)까지 기다려 달라고 했습니다.") }
    func why(_ reason: String) -> String { say("Why it waits: \(reason).", "기다리는 이유: \(reason).") }
    func sent(_ result: StaffSendResult) -> String {
        if result.waiting == 0 { return say("Sent \(result.sent). All answers have been sent.", "\(result.sent)건 전송했습니다. 모든 응답이 전송되었습니다.") }
        return say("Sent \(result.sent); \(result.waiting) still waiting. ", "\(result.sent)건 전송, \(result.waiting)건 대기 중. ") + connectivity(result.connectivity)
            + (result.reason.map { " " + why($0) } ?? "")
    }
    func todayLine(_ today: StaffGlance.Today) -> String {
        let flags = today.flags.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let detail = flags.isEmpty ? "" : " (\(flags))"
        return say("Started \(today.started) · completed \(today.completed) · screened out \(today.screenedOut) · abandoned \(today.abandoned) · flagged \(today.flagged)\(detail)"
                + (today.declined > 0 ? " · declined consent \(today.declined)" : ""),
            "시작 \(today.started) · 완료 \(today.completed) · 대상 아님 \(today.screenedOut) · 중단 \(today.abandoned) · 품질 표시 \(today.flagged)\(detail)"
                + (today.declined > 0 ? " · 동의 안 함 \(today.declined)" : ""))
    }
    var outOfServiceNow: String { say("Out of service now: respondents cannot start.", "지금 사용 중지 상태입니다: 응답자가 시작할 수 없습니다.") }
    var closedNow: String { say("Closed now (outside opening hours).", "지금은 운영 시간이 아닙니다.") }
    var inServiceNow: String { say("In service.", "사용 중입니다.") }
    func surveyLine(_ title: String, stage: String, languages: [KioskLanguage]) -> String {
        say("Survey: \(title) (\(stage)), in \(languages.map(\.rawValue).joined(separator: ", ")).", "설문: \(title) (\(stage)), 언어 \(languages.map(\.rawValue).joined(separator: ", ")).")
    }
    func disk(_ bytes: Int) -> String {
        let megabytes = bytes / (1 << 20)
        return say("Space left for answers: \(megabytes) MB.", "응답 저장 공간: \(megabytes) MB 남음.")
    }
    func encryption(_ on: Bool) -> String { on ? say("Answers are encrypted on this kiosk.", "응답은 암호화되어 저장됩니다.") : say("Answers are stored unencrypted.", "응답이 암호화되지 않은 채 저장됩니다.") }
    func about(version: String, device: String?, uptime: String) -> String {
        say("Version \(version)", "버전 \(version)") + (device.map { say(" · device \($0)", " · 기기 \($0)") } ?? "") + say(" · running for \(uptime)", " · 실행 \(uptime)")
    }
    func switched(_ title: String) -> String { say("The next respondent starts \(title).", "다음 응답자는 \(title) 설문을 시작합니다.") }
    var nowOutOfService: String { say("The kiosk is out of service.", "키오스크를 사용 중지했습니다.") }
    var nowInService: String { say("The kiosk is back in service.", "키오스크를 다시 사용합니다.") }
}
