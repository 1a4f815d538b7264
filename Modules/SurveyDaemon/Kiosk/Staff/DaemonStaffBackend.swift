#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Kiosk
import Synchronization

/// The staff screen's backend in the daemon: the desk for the PIN, out of service and the
/// survey; the control API's own status and flush for the glance and Send now, so that the
/// screen shows what `surveyctl status` prints.
struct DaemonStaffBackend: KioskStaffBackend {
    let desk: KioskStaffDesk
    let control: DaemonBackend
    let languages: [KioskLanguage]
    let stateDirectory: String
    /// How long Send now follows the queue at most, on the monotonic clock `now` reads.
    var sendWait: Duration = .seconds(10)
    var now: @Sendable () -> ContinuousClock.Instant = { .now }
    var pause: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

    func staffScreenEnabled() async -> Bool { desk.staffScreenEnabled }

    func availability() async -> KioskAvailability { desk.availability }

    func nextAvailabilityChange() async -> Date? { desk.nextHoursBoundary }

    func verify(pin: String) async -> StaffPinVerdict { await desk.verify(pin: pin) }

    func glance() async -> StaffGlance {
        var glance = StaffGlance(availability: desk.availability)
        glance.survey = desk.survey
        glance.surveys = desk.surveys
        glance.languages = languages
        glance.today = desk.today?.today
        glance.diskFreeBytes = await onPool { Self.freeBytes(stateDirectory) }
        guard let status = try? await control.status() else {
            glance.problems = ["The kiosk's state cannot be read now; try again, or ask the administrator (surveyctl status)."]
            return glance
        }
        glance.waiting = status.queue.pending + status.queue.inFlight
        glance.oldestWaitingSince = status.queue.oldestPendingAgeSeconds.map { Date().addingTimeInterval(-$0) }
        glance.lastSentAt = status.queue.lastDeliveryAt.flatMap(Self.date)
        glance.waitingReason = status.queue.waiting?.reason
        glance.holdOffUntil = status.queue.holdOff.flatMap { Self.date($0.until) }
        glance.tokenRefused = status.paused != nil
        glance.connectivity = status.connectivity.state
        glance.deadLetters = status.queue.dead
        glance.encrypted = status.encryption.map { $0.state == EncryptionView.on }
        glance.version = status.version
        glance.deviceId = status.deviceId
        glance.uptimeSeconds = status.uptimeSeconds
        if status.journalFailed { glance.problems.append("Answers cannot be saved: the disk refuses writes. Call the administrator.") }
        if status.queue.dead > 0 { glance.problems.append("\(status.queue.dead) survey answers were refused by the server. Call the administrator (surveyctl dead).") }
        if status.firstStageMissing != nil { glance.problems.append("The survey server has no questionnaire for this survey. Call the administrator.") }
        return glance
    }

    /// Flushes (`surveyctl flush`), then follows the queue until nothing waits, nothing is in
    /// flight any more, or ``sendWait`` has passed, so that the screen can say what was sent.
    func sendNow() async -> StaffSendResult {
        let before = try? await control.status()
        desk.announce("send_now", by: KioskStaffDesk.Actor.staff.rawValue)
        _ = try? await control.flush(FlushRequest())
        let deadline = now().advanced(by: sendWait)
        var last = try? await control.status()
        while let status = last, status.queue.pending > 0, now() < deadline {
            await pause(.milliseconds(250))
            guard let next = try? await control.status() else { break }
            last = next
            // Nothing in flight and nothing sent meanwhile: it waits (no network, a backoff, a pause).
            if next.queue.inFlight == 0 && next.queue.delivered == status.queue.delivered { break }
        }
        let after = last ?? before
        let reason = after.flatMap { status in
            status.paused?.reason ?? status.queue.holdOff?.reason ?? status.queue.waiting?.reason
        }
        return StaffSendResult(
            sent: max(0, (after?.queue.delivered ?? 0) - (before?.queue.delivered ?? 0)), waiting: after?.queue.pending ?? 0,
            connectivity: after?.connectivity.state ?? "unknown", reason: reason)
    }

    func setOutOfService(_ outOfService: Bool, message: String?) async throws(KioskStaffError) {
        if outOfService {
            try await desk.setOutOfService(message: message, by: .staff)
        } else {
            try await desk.setInService(by: .staff)
        }
    }

    /// A listed survey whose questionnaire cannot be loaded (neither from the survey server nor
    /// from the cache) is refused with why; an unlisted one by the desk, naming those allowed.
    func chooseSurvey(_ stage: String) async throws(KioskStaffError) {
        if desk.isListed(stage) {
            let language = languages.first?.rawValue ?? "ko"
            do {
                _ = try await control.sessions.definitions.definition(stage: stage, language: language)
            } catch {
                let reason = (error as? DefinitionSourceError)?.message ?? "\(error)"
                throw KioskStaffError("The survey \(stage) cannot be used now (\(reason)); the kiosk keeps its survey. Call the administrator.")
            }
        }
        try await desk.chooseSurvey(stage, by: .staff)
    }

    func staffSession(entered: Bool) async {
        desk.announce(entered ? "staff_entered" : "staff_left", by: KioskStaffDesk.Actor.staff.rawValue)
    }

    static func date(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }

    static func freeBytes(_ directory: String) -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
