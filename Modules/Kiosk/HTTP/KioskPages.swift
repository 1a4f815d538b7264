import Entities

import Hummingbird
import Logging
import NIOCore

/// The handlers of the pages: each reads the browser's binding, calls the backend and answers
/// with a page or a redirect (POST, then redirect to GET). Domain errors become pages here.
struct KioskPages: Sendable {
    let backend: any KioskBackend
    let settings: KioskSettings
    let renderer: KioskRenderer
    let bindings: BrowserBindings
    let logger: Logger
    /// The staff screen, out of service and the survey chosen; nil: none of them.
    var staff: (any KioskStaffBackend)? = nil
    /// The browsers on the staff screen.
    let staffSessions: StaffSessions
    /// Wakes the welcome screen's held requests (`GET /state?shown=…`).
    var changes = KioskChanges()

    // MARK: Pages (GET)

    func welcome(_ request: Request) async -> Response {
        let asked = request.uri.queryParameters["lang"].flatMap { KioskLanguage(rawValue: String($0)) }
        let language = asked.flatMap { settings.languages.contains($0) ? $0 : nil } ?? settings.defaultLanguage
        var found = await browser(request)
        var isNew = false
        if found == nil {
            let created = bindings.create(language: language)
            await abandon(created.evicted, why: "the kiosk keeps at most \(settings.maxBrowsers) browsers")
            found = created.found
            isNew = true
        }
        guard let found else { return redirect(to: "/") }
        if found.binding.session != nil { return redirect(to: "/question") }
        // Staff who left without Done: the next person at this browser gets the PIN pad again.
        staffSessions.end(browser: found.token)
        bindings.update(found.token) {
            $0.ended = nil
            $0.consent = nil
            $0.declined = false
            $0.language = language
        }
        let cookie = isNew ? found.token : nil
        guard let staff else { return html(renderer.welcome(language: language, csrf: found.binding.csrf), cookie: cookie) }
        let availability = await staff.availability()
        let staffHold = await staff.staffScreenEnabled()
        let state = Self.fingerprint(availability, staffHold: staffHold, brand: renderer.brand.current.generation)
        guard case .open(let survey) = availability else {
            return html(renderer.unavailableScreen(availability, language: language, staffHold: staffHold, state: state), cookie: cookie)
        }
        return html(renderer.welcome(language: language, csrf: found.binding.csrf, survey: survey, state: state, staffHold: staffHold), cookie: cookie)
    }

    func question(_ request: Request) async -> Response {
        guard let found = await browser(request) else { return redirect(to: "/") }
        // A respondent at work (in this browser or another) ends every staff screen.
        staffSessions.respondentSeen()
        guard let session = found.binding.session else { return redirect(to: Self.currentPage(found.binding)) }
        let view: RespondentView
        do {
            view = try await backend.view(session: session)
        } catch {
            return failed(error, found: found, session: session)
        }
        switch view.state {
        case .asking(let question):
            let shown = BrowserBindings.ShownQuestion(name: question.form.name, position: view.position)
            let (flash, cameBack) = bindings.update(found.token) { binding -> (BrowserBindings.Flash?, Bool) in
                let flash = binding.flash
                let cameBack = binding.cameBack
                binding.flash = nil
                binding.cameBack = false
                binding.shown = shown
                binding.language = view.language
                return (flash, cameBack)
            } ?? (nil, false)
            let rejected = flash.flatMap { flash in
                flash.question == question.form.name && flash.position == view.position ? (flash.rejection, flash.posted) : nil
            }
            return html(renderer.question(question, view: view, csrf: found.binding.csrf, rejected: rejected, cameBack: cameBack))
        case .waiting:
            return html(renderer.message(.waiting, language: view.language))
        case .closed:
            return moveOn(view, found: found)
        }
    }

    func end(_ request: Request) async -> Response {
        guard let found = await browser(request) else { return redirect(to: "/") }
        guard let ended = found.binding.ended else { return redirect(to: Self.currentPage(found.binding)) }
        return html(renderer.end(ended, language: found.binding.language))
    }

    // MARK: Forms (POST)

    func start(_ request: Request) async -> Response {
        await post(request, fields: ["csrf", "lang"]) { found, form in
            if found.binding.session != nil { return redirect(to: "/question") }
            // A respondent starting in this browser ends its staff login, whatever comes of the start.
            staffSessions.end(browser: found.token)
            guard let code = form.value("lang"), let language = KioskLanguage(rawValue: code), settings.languages.contains(language) else {
                return badRequest(FormBodyError("field \"lang\" must be one of \(settings.languages.map(\.rawValue).joined(separator: ", "))"), language: found.binding.language)
            }
            // Out of service or closed: the welcome screen says so.
            if let staff {
                guard case .open = await staff.availability() else { return redirect(to: "/") }
            }
            // With a consent notice, no session starts before the respondent agrees to it.
            if consentNotice(language) != nil {
                bindings.update(found.token) {
                    $0.consent = BrowserBindings.ConsentStep(language: language)
                    $0.language = language
                    $0.ended = nil
                    $0.declined = false
                }
                return redirect(to: "/consent")
            }
            return await startSession(language: language, consent: nil, found: found)
        }
    }

    /// Starts a session and attaches it to the browser, then shows its first question.
    func startSession(language: KioskLanguage, consent: String?, found: BrowserBindings.Found) async -> Response {
        let view: RespondentView
        do {
            view = try await backend.start(language: language, consent: consent)
        } catch {
            logger.warning("kiosk: cannot start a session", metadata: ["error": "\(error)"])
            return unavailable(language: language)
        }
        guard bindings.attach(view.session, language: view.language, to: found.token) else {
            // A second Start of the same browser won the race: keep that one.
            await abandon([view.session], why: "a second start of the same browser")
            return redirect(to: "/question")
        }
        return moveOn(view, found: found)
    }

    func answer(_ request: Request, skip: Bool) async -> Response {
        let fields: Set<String> = skip ? ["csrf", "question", "position", "pd"] : ["csrf", "question", "position", "value", "extra", "pd"]
        return await post(request, fields: fields, repeatable: ["value"]) { found, form in
            guard let session = found.binding.session else { return redirect(to: Self.currentPage(found.binding)) }
            let question: String
            let position: Int
            do throws(FormBodyError) {
                (question, position) = try form.shownQuestion()
            } catch {
                return badRequest(error, language: found.binding.language)
            }
            let posted = PostedAnswer(values: form.values("value"), extra: form.value("extra"))
            // What Next with nothing entered means is the session's to decide.
            let input = skip ? KioskInput.skip : .entry(posted.entry)
            do throws(KioskError) {
                switch try await backend.answer(session: session, question: question, position: position, input: input, pageInput: form.pageInput) {
                case .accepted(let view):
                    return moveOn(view, found: found)
                case .rejected(let rejection, let view):
                    if case .unreadable = rejection {
                        // Not the detail: it quotes what the respondent typed, which no log holds.
                        logger.debug("kiosk: unreadable answer", metadata: ["question": "\(question)"])
                    }
                    bindings.update(found.token) {
                        $0.flash = BrowserBindings.Flash(question: question, position: position, rejection: rejection, posted: posted)
                    }
                    return view.question == nil ? moveOn(view, found: found) : redirect(to: "/question")
                case .questionChanged(let view):
                    return moveOn(view, found: found)
                }
            } catch {
                return failed(error, found: found, session: session)
            }
        }
    }

    func back(_ request: Request) async -> Response {
        await post(request, fields: ["csrf", "question", "position"]) { found, form in
            guard let session = found.binding.session else { return redirect(to: Self.currentPage(found.binding)) }
            let question: String
            let position: Int
            do throws(FormBodyError) {
                (question, position) = try form.shownQuestion()
            } catch {
                return badRequest(error, language: found.binding.language)
            }
            // Only from the question last shown, once: a double tap on Back goes back one question.
            let fromShown = bindings.update(found.token) { binding -> Bool in
                guard let shown = binding.shown, shown.name == question, shown.position == position else { return false }
                binding.shown = nil
                return true
            } ?? false
            guard fromShown else { return redirect(to: "/question") }
            do throws(KioskError) {
                let view = try await backend.back(session: session)
                bindings.update(found.token) { $0.cameBack = true }
                return moveOn(view, found: found)
            } catch {
                return failed(error, found: found, session: session)
            }
        }
    }

    func reset(_ request: Request) async -> Response {
        await post(request, fields: ["csrf"]) { found, _ in
            if let session = found.binding.session {
                bindings.detach(session, from: found.token, ended: nil)
                await abandon([session], why: "the respondent did not answer \"Are you still there?\"")
            }
            return redirect(to: "/")
        }
    }

    func alive(_ request: Request) async -> Response {
        // The lookup behind `post` has touched the binding: that is all there is to do.
        await post(request, fields: ["csrf"]) { _, _ in Response(status: .noContent) }
    }
}
