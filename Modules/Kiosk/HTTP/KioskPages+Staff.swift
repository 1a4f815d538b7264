import Hummingbird
import Logging
import NIOCore

/// The staff screen's handlers (`/staff…`), under the pages' cookie and CSRF rules.
/// Nothing here reads or changes the browser's respondent session.
///
/// Every staff handler first takes whether the client may use the staff screen at all
/// (``KioskStaffAccess``): one that may not gets a page saying why, and its PIN is not checked,
/// so it cannot count towards the lockout. Staff rights are the staff cookie's, whose token
/// ``StaffSessions`` makes when the right PIN is typed.
extension KioskPages {
    /// `GET /staff`: the PIN pad, or the staff screen for a browser that entered the right PIN.
    func staffScreen(_ request: Request, admitted: Bool) async -> Response {
        guard let staff, await staff.staffScreenEnabled() else { return redirect(to: "/") }
        guard admitted else { return staffRefused(request) }
        guard let found = await browser(request) else { return redirect(to: "/") }
        let language = found.binding.language
        let flash = staffSessions.takeFlash(found.token)
        guard staffSessions.isIn(staffToken(request), browser: found.token) else {
            return html(renderer.staff(language: language, csrf: found.binding.csrf, flash: flash, glance: nil))
        }
        return html(renderer.staff(language: language, csrf: found.binding.csrf, flash: flash, glance: await staff.glance()))
    }

    /// `POST /staff/pin`: the right PIN gives the browser a new staff cookie.
    func staffPin(_ request: Request, admitted: Bool) async -> Response {
        guard admitted else { return staffRefused(request) }
        return await post(request, fields: ["csrf", "pin"]) { found, form in
            guard let staff else { return redirect(to: "/") }
            let words = StaffWords(language: found.binding.language)
            switch await staff.verify(pin: form.value("pin") ?? "") {
            case .accepted:
                let token = staffSessions.enter(browser: found.token)
                await staff.staffSession(entered: true)
                var response = redirect(to: "/staff")
                response.setCookie(staffCookie(token))
                return response
            case .wrong(let left): staffSessions.setFlash(found.token, words.wrongPin(left))
            case .locked(let seconds): staffSessions.setFlash(found.token, words.locked(seconds))
            case .busy: staffSessions.setFlash(found.token, words.busy)
            case .off: return redirect(to: "/")
            }
            return redirect(to: "/staff")
        }
    }

    /// `POST /staff/send`, `/staff/out-of-service`, `/staff/in-service`, `/staff/survey`: each
    /// only from a browser on the staff screen, then back to it with what the action came to.
    func staffAction(_ request: Request, _ action: StaffAction, admitted: Bool) async -> Response {
        guard admitted else { return staffRefused(request) }
        return await post(request, fields: ["csrf", "message", "stage"]) { found, form in
            guard let staff, staffSessions.isIn(staffToken(request), browser: found.token) else { return redirect(to: "/staff") }
            let words = StaffWords(language: found.binding.language)
            let flash: String
            do throws(KioskStaffError) {
                switch action {
                case .send:
                    flash = words.sent(await staff.sendNow())
                case .outOfService:
                    try await staff.setOutOfService(true, message: form.value("message"))
                    flash = words.nowOutOfService
                case .inService:
                    try await staff.setOutOfService(false, message: nil)
                    flash = words.nowInService
                case .survey:
                    let stage = form.value("stage") ?? ""
                    try await staff.chooseSurvey(stage)
                    let title = await staff.glance().survey?.title(for: found.binding.language) ?? stage
                    flash = words.switched(title)
                }
            } catch {
                flash = error.message
            }
            staffSessions.setFlash(found.token, flash)
            return redirect(to: "/staff")
        }
    }

    /// `POST /staff/done`: back to the welcome screen, the staff cookie cleared.
    func staffDone(_ request: Request, admitted: Bool) async -> Response {
        guard admitted else { return staffRefused(request) }
        return await post(request, fields: ["csrf"]) { _, _ in
            if staffSessions.leave(staffToken(request)) { await staff?.staffSession(entered: false) }
            var response = redirect(to: "/")
            response.setCookie(staffCookie(nil))
            return response
        }
    }

    enum StaffAction: Sendable {
        case send, outOfService, inService, survey
    }

    /// The staff cookie's token, when the request carries one.
    func staffToken(_ request: Request) -> String? {
        request.cookie(named: KioskApplication.staffCookieName)
    }

    /// The staff cookie: sent to `/staff…` only, `HttpOnly`, `SameSite=Strict`; nil clears it.
    func staffCookie(_ token: String?) -> Cookie {
        Cookie(
            name: KioskApplication.staffCookieName, value: token ?? "", maxAge: token == nil ? 0 : nil, path: "/staff",
            secure: settings.secureCookie, httpOnly: true, sameSite: .strict)
    }

    /// `403`: this client may not use the staff screen, with why and what the operator can do.
    /// Nothing of the request is read: no PIN is checked, no lockout counts.
    func staffRefused(_ request: Request) -> Response {
        let language = bindings.lookup(request.cookie(named: KioskApplication.cookieName))?.binding.language ?? settings.defaultLanguage
        logger.notice("kiosk: staff screen refused to a client not on this machine; the pages are served to the network over plain HTTP (kioskStaffPinOverPlainHTTP refuse)", metadata: ["path": "\(request.uri.path)"])
        return page(renderer.staffRefused(language: language), status: .forbidden)
    }
}
