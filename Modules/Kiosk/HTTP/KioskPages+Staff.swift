import Hummingbird
import NIOCore

/// The staff screen's handlers (`/staff…`) and `/state`, under the pages' cookie and CSRF rules.
/// Nothing here reads or changes the browser's respondent session.
extension KioskPages {
    /// `GET /staff`: the PIN pad, or the staff screen for a browser that entered the right PIN.
    func staffScreen(_ request: Request) async -> Response {
        guard let staff, await staff.staffScreenEnabled(), let found = await browser(request) else { return redirect(to: "/") }
        let language = found.binding.language
        let flash = staffSessions.takeFlash(found.token)
        guard staffSessions.isIn(found.token) else {
            return html(renderer.staff(language: language, csrf: found.binding.csrf, flash: flash, glance: nil))
        }
        return html(renderer.staff(language: language, csrf: found.binding.csrf, flash: flash, glance: await staff.glance()))
    }

    /// `POST /staff/pin`.
    func staffPin(_ request: Request) async -> Response {
        await post(request, fields: ["csrf", "pin"]) { found, form in
            guard let staff else { return redirect(to: "/") }
            let words = StaffWords(language: found.binding.language)
            switch await staff.verify(pin: form.value("pin") ?? "") {
            case .accepted:
                staffSessions.enter(found.token)
                await staff.staffSession(entered: true)
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
    func staffAction(_ request: Request, _ action: StaffAction) async -> Response {
        await post(request, fields: ["csrf", "message", "stage"]) { found, form in
            guard let staff, staffSessions.isIn(found.token) else { return redirect(to: "/staff") }
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

    /// `POST /staff/done`: back to the welcome screen.
    func staffDone(_ request: Request) async -> Response {
        await post(request, fields: ["csrf"]) { found, _ in
            if staffSessions.leave(found.token) { await staff?.staffSession(entered: false) }
            return redirect(to: "/")
        }
    }

    /// `GET /state`: what the welcome screen shows of the kiosk's state, as a short text its
    /// script compares with the page's own.
    func state(_ request: Request) async -> Response {
        let text = await staff?.availability().fingerprint ?? ""
        return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    enum StaffAction: Sendable {
        case send, outOfService, inService, survey
    }
}
