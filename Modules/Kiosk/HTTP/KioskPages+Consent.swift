import Hummingbird

/// The consent step between Start and the first question, when the operator set a notice: the
/// notice, "I agree" (the session starts, recording the version shown) and "No, thanks" (no
/// session, a neutral thank-you, and only a count kept).
extension KioskPages {
    /// The notice for `language` now, when the kiosk asks for consent.
    func consentNotice(_ language: KioskLanguage) -> KioskConsentNotice? {
        renderer.brand.current.brand.consent[language]
    }

    func consent(_ request: Request) async -> Response {
        guard let found = await browser(request) else { return redirect(to: "/") }
        guard found.binding.session == nil, let step = found.binding.consent else { return redirect(to: Self.currentPage(found.binding)) }
        guard let notice = consentNotice(step.language) else {
            // The notice was taken away (a reload) while this respondent read it: start again.
            bindings.update(found.token) { $0.consent = nil }
            return redirect(to: "/")
        }
        // What an agreement records: the version this page shows, whatever the file says later.
        bindings.update(found.token) { $0.consent?.shown = notice.version }
        return html(renderer.consent(notice, language: step.language, csrf: found.binding.csrf))
    }

    func answerConsent(_ request: Request) async -> Response {
        await post(request, fields: ["csrf", "version", "choice"]) { found, form in
            if found.binding.session != nil { return redirect(to: "/question") }
            guard let step = found.binding.consent else { return redirect(to: Self.currentPage(found.binding)) }
            switch form.value("choice") {
            case "agree":
                // The page agreed to must be the one last shown (another tab may show a newer one).
                guard let shown = step.shown, form.value("version") == shown else { return redirect(to: "/consent") }
                if let staff {
                    guard case .open = await staff.availability() else {
                        bindings.update(found.token) { $0.consent = nil }
                        return redirect(to: "/")
                    }
                }
                return await startSession(language: step.language, consent: shown, found: found)
            case "decline":
                let declined = bindings.update(found.token) { binding -> Bool in
                    guard binding.consent != nil, binding.session == nil else { return false }
                    binding.consent = nil
                    binding.declined = true
                    // The notice's form stops working: a second tap goes to the thank-you.
                    binding.previousCSRF = binding.csrf
                    binding.csrf = KioskToken.make()
                    return true
                } ?? false
                if declined { await backend.consentDeclined(language: step.language) }
                return redirect(to: "/declined")
            default:
                return badRequest(FormBodyError("field \"choice\" must be agree or decline"), language: step.language)
            }
        }
    }

    func declined(_ request: Request) async -> Response {
        guard let found = await browser(request) else { return redirect(to: "/") }
        guard found.binding.declined, found.binding.session == nil else { return redirect(to: Self.currentPage(found.binding)) }
        return html(renderer.declined(language: found.binding.language))
    }
}
