import ControlAPI
import Foundation
import Storage
import SurveyDaemon
import Synchronization
import Testing

/// A journal compaction and a request on one of the sessions it is about to retire.
@Suite(.timeLimit(.minutes(5))) struct SessionCompactionRaceTests {
    let fixture = SessionManagerTests()

    /// While the compaction asks the queue about a closed session's upload, the delivery of that
    /// upload is reported and recorded on the session (a follow-up named). The record is written
    /// then, not parked behind a compaction that retires the session under it and fails it.
    @Test func aDeliveryRecordedWhileACompactionDecidesIsWrittenFirst() async throws {
        let m = fixture.manager(deliveryWait: .milliseconds(20))
        let session = try await m.start(StartSessionRequest())
        _ = try await fixture.answerCommon(m)
        #expect(try await m.view(id: session.id).outcome == "queued", "nothing delivered the upload in time")
        let key = try #require(fixture.queue.submissions.withLock { $0.last?.idempotencyKey })
        let delivered = SubmissionState.delivered(response: "2")
        fixture.queue.states.withLock { $0[key] = delivered }
        fixture.clock.advance(2 * 86_400)

        let journal = fixture.journal
        let recorded = SendableFlag()
        fixture.queue.duringStateLookup.withLock {
            $0 = { lookedUp in
                guard lookedUp == key else { return }
                // The worker reports the delivery now; wait (bounded) until it is journaled.
                Task { await m.deliveryFinished(key: key, state: delivered) }
                for _ in 0..<200 {
                    if journal.events.withLock({ $0.contains { if case .followUpNamed = $0 { true } else { false } } }) {
                        recorded.set()
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
        }
        let result = try await m.compactJournal(retention: .seconds(86_400))
        #expect(recorded.isSet, "the delivery's follow-up was journaled while the compaction asked the queue")
        #expect(result.retired == 1, "the session is retired after its delivery was recorded")
        await #expect(throws: SessionError.self) { try await m.view(id: session.id) }
    }
}

/// A flag set once, read from any task.
final class SendableFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
