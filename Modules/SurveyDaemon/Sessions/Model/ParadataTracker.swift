import Entities

/// What the daemon measures of one session's current stage as it goes, in memory: when the
/// question was put (on the monotonic clock) and, per answer, how long it took. Journaled once,
/// with the stage's completion (``SessionEvent/stageCompleted(session:stage:idempotencyKey:at:quality:)``).
struct ParadataTracker: Sendable, Hashable {
    private(set) var paradata = StageParadata()
    /// When the stage began; nil when the daemon restarted during it.
    let startedAt: Duration?
    /// When the question being asked was put; nil after a restart until the next answer.
    private var shownAt: Duration?

    /// A stage that began at `startedAt`, or (nil) one the daemon restarted in the middle of.
    init(startedAt: Duration?) {
        self.startedAt = startedAt
        shownAt = startedAt
        paradata.restarted = startedAt == nil
    }

    /// The question at `position` was answered (or skipped) at `at`; `changed` when it replaced a
    /// different answer given before Back.
    mutating func answered(position: Int, skipped: Bool, changed: Bool, input: PageInput?, at: Duration) {
        let milliseconds = shownAt.map { Self.milliseconds(at - $0) }
        paradata.questions.append(QuestionTiming(position: position, milliseconds: milliseconds, skipped: skipped, input: input))
        if changed { paradata.changed += 1 }
        shownAt = at
    }

    /// Back was tapped at `at`: the earlier question is put again from then.
    mutating func wentBack(at: Duration) {
        paradata.backs += 1
        shownAt = at
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(0, Int(seconds) * 1000 + Int((Double(attoseconds) / 1e15).rounded()))
    }
}
