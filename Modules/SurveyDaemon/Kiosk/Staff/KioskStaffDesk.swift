public import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Kiosk
import Logging
import NIOPosix
import Synchronization

/// The kiosk's staff state in the daemon, shared by the staff screen and the control API: out of
/// service, the survey chosen among `kioskSurveys`, and the staff PIN with its lockout. Every
/// change is kept in `STATE/kiosk-staff.json` (``KioskStaffRecord``), logged and published as a
/// `staff_action` event; nothing in it is a respondent's.
public final class KioskStaffDesk: Sendable {
    struct State {
        var outOfService: KioskStaffRecord.OutOfService?
        var survey: String?
        var lockout = StaffLockout()
        var pin: StaffPinHash?
        var surveys: [KioskSurveyChoice]
        var verifying = false
        /// Bumped by every change, so that the newest record is the one left on disk.
        var version = 0

        /// The survey kiosk respondents start: the one chosen on the staff screen while
        /// `kioskSurveys` lists it, else the first listed.
        var chosen: KioskSurveyChoice? {
            survey.flatMap { chosen in surveys.first { $0.stage == chosen } } ?? surveys.first
        }

        /// Whether `kioskSurveys` lists `stage`.
        func lists(_ stage: String) -> Bool { surveys.contains { $0.stage == stage } }

        /// Forgets the chosen survey when `kioskSurveys` no longer lists it; returns its stage then.
        mutating func forgetUnlistedChoice() -> String? {
            guard let chosen = survey, !lists(chosen) else { return nil }
            survey = nil
            return chosen
        }
    }

    let state: Mutex<State>
    let written = Mutex(0)
    let directory: String
    let defaultStage: String
    let now: @Sendable () -> ContinuousClock.Instant
    let wallNow: @Sendable () -> Date
    let logger: Logger
    let events: DaemonEvents?
    let metrics: StaffMetrics?
    /// Whether a PIN matches a hash: slow, so the daemon runs it on NIO's thread pool.
    let matches: @Sendable (StaffPinHash, String) async -> Bool
    /// Whether the kiosk is inside its opening hours now; nil: always open.
    let isOpen: (@Sendable () -> Bool)?
    /// Today's counts, for the staff screen; a service of the daemon keeps them.
    let today: KioskTodayCounter?
    /// The opening hours behind ``isOpen``, for when they change by themselves next.
    let hours: KioskOpenHours?
    /// Signalled at every change of the state, so that the welcome screens' held requests answer.
    public let changes = KioskChanges()

    init(
        directory: String, defaultStage: String, pin: StaffPinHash?, surveys: [KioskSurveyChoice], logger: Logger,
        events: DaemonEvents? = nil, metrics: StaffMetrics? = nil, isOpen: (@Sendable () -> Bool)? = nil, today: KioskTodayCounter? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, wallNow: @escaping @Sendable () -> Date = { Date() },
        matches: @escaping @Sendable (StaffPinHash, String) async -> Bool = KioskStaffDesk.matchOnThreadPool,
        hours: KioskOpenHours? = nil
    ) {
        self.hours = hours
        self.directory = directory
        self.defaultStage = defaultStage
        self.now = now
        self.wallNow = wallNow
        self.logger = logger
        self.events = events
        self.metrics = metrics
        self.matches = matches
        self.isOpen = isOpen
        self.today = today
        let record = KioskStaffRecord.load(directory: directory) { logger.warning("kiosk staff settings: \($0)") }
        var initial = State(outOfService: record.outOfService, survey: record.survey, pin: pin, surveys: surveys)
        if let lockout = record.lockout { initial.lockout = StaffLockout(record: lockout, now: now(), wallNow: wallNow()) }
        if let dropped = initial.forgetUnlistedChoice() { Self.noteUnlisted(dropped, logger: logger) }
        state = Mutex(initial)
        metrics?.outOfService(record.outOfService != nil)
    }

    @Sendable static func matchOnThreadPool(_ hash: StaffPinHash, _ pin: String) async -> Bool {
        (try? await NIOThreadPool.singleton.runIfActive { hash.matches(pin) }) ?? false
    }

    /// The survey kiosk respondents start now: the one chosen on the staff screen, else the first of `kioskSurveys`.
    public var survey: KioskSurveyChoice? {
        state.withLock { $0.chosen }
    }

    /// Whether a kiosk session may start now.
    public var availability: KioskAvailability {
        let (outOfService, survey) = state.withLock { state in
            (state.outOfService, state.chosen)
        }
        if let outOfService { return .outOfService(message: outOfService.message) }
        if let isOpen, !isOpen() { return .closed }
        return .open(survey: survey)
    }

    var staffScreenEnabled: Bool { state.withLock { $0.pin != nil } }

    /// The surveys staff may choose among (`kioskSurveys`).
    var surveys: [KioskSurveyChoice] { state.withLock { $0.surveys } }

    /// The staff PIN's hash in use; nil when the staff screen has no PIN.
    var pin: StaffPinHash? { state.withLock { $0.pin } }

    /// When the opening hours open or close the kiosk next (nil: never, or no hours).
    var nextHoursBoundary: Date? { hours?.nextBoundary(after: wallNow()) }

    /// What `status` shows.
    public var view: KioskStatusView {
        let at = now()
        let wall = wallNow()
        let availability = availability
        let today = today.map(\.today)
        return state.withLock { state in
            let stateName = switch availability {
            case .open: KioskStatusView.inService
            case .outOfService: KioskStatusView.outOfServiceState
            case .closed: KioskStatusView.closed
            }
            let chosen = state.chosen
            let locked = state.lockout.remaining(at: at).map { wall.addingTimeInterval(StaffLockout.seconds($0)).iso8601Seconds }
            return KioskStatusView(
                state: stateName,
                outOfService: state.outOfService.map { .init(message: $0.message, since: $0.since.iso8601Seconds) },
                survey: chosen?.stage ?? defaultStage,
                staffPin: .init(configured: state.pin != nil, wrongInARow: state.lockout.failuresInARow, lockedUntil: locked), today: today)
        }
    }

    /// Applies a SIGHUP's PIN file and survey list; a chosen survey no longer listed falls back to the default.
    func reload(pin: StaffPinHash?, surveys: [KioskSurveyChoice]) async {
        let dropped: String? = state.withLock { state in
            state.pin = pin
            state.surveys = surveys
            guard let dropped = state.forgetUnlistedChoice() else { return nil }
            state.version += 1
            return dropped
        }
        if let dropped {
            Self.noteUnlisted(dropped, logger: logger)
            await persist()
        }
        changes.signal()
    }

    private static func noteUnlisted(_ stage: String, logger: Logger) {
        logger.notice("kiosk: the survey chosen on the staff screen is no longer in kioskSurveys; the default is used", metadata: ["stage": "\(stage)"])
    }

    /// Logs and publishes a staff action (never a PIN's digits).
    func announce(_ action: String, by actor: String, _ metadata: Logger.Metadata = [:]) {
        var metadata = metadata
        metadata["action"] = "\(action)"
        metadata["by"] = "\(actor)"
        logger.notice("kiosk staff action", metadata: metadata)
        events?.publish(DaemonEvent(.staffAction, at: wallNow(), action: action, by: actor))
    }

    /// Writes the state as it is now, unless a newer write already did; false when the write
    /// failed (logged).
    @discardableResult
    func persist() async -> Bool {
        let at = now()
        let wall = wallNow()
        let (record, version) = state.withLock { state in
            (KioskStaffRecord(outOfService: state.outOfService, survey: state.survey, lockout: state.lockout.record(now: at, wallNow: wall)), state.version)
        }
        let directory = directory
        let logger = logger
        defer { changes.signal() }
        return await onPool {
            written.withLock { last in
                guard version >= last else { return true }
                do {
                    try record.write(directory: directory)
                    last = version
                    return true
                } catch {
                    logger.error("kiosk staff settings not kept: \(error)")
                    return false
                }
            }
        }
    }
}
