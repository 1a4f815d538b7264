/// The kiosk's consent notices, declared beside the other settings (`DaemonSetting.all`).
extension DaemonSetting {
    static let kioskConsent: [DaemonSetting] = [
        DaemonSetting(
            \.kioskConsentFileKorean, key: "kioskConsentFileKorean", variable: "SURVEYD_KIOSK_CONSENT_FILE_KO", flag: "kiosk-consent-file-ko",
            kind: .text(valueName: "file", accepts: "a UTF-8 plain text or Markdown file of at most 64 KiB"),
            none: "no consent asked",
            doc: "the consent notice a Korean-speaking kiosk respondent reads after Start and agrees to (or not) before the first question; its version (the first 16 hex digits of the file's SHA-256) is journaled with the session and sent as `Survey-Consent`; set it for every language the kiosk offers (doc/kiosk.md has a template); read at start (exit 78 when missing or unreadable) and again on SIGHUP"),
        DaemonSetting(
            \.kioskConsentFileEnglish, key: "kioskConsentFileEnglish", variable: "SURVEYD_KIOSK_CONSENT_FILE_EN", flag: "kiosk-consent-file-en",
            kind: .text(valueName: "file", accepts: "a UTF-8 plain text or Markdown file of at most 64 KiB"),
            none: "no consent asked",
            doc: "the same for English-speaking respondents"),
    ]
}
