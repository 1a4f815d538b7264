import ControlAPI
import Foundation
import SurveyDaemon
import SurveyTesting
import Testing

/// The event hub behind `GET /v1/events`.
@Suite(.timeLimit(.minutes(5))) struct DaemonEventsTests {
    @Test func everySubscriberGetsWhatIsPublishedAfterItSubscribed() async throws {
        let events = DaemonEvents()
        events.publish(DaemonEvent(.delivered, key: "before"))
        let first = events.subscribe()
        let second = events.subscribe()
        #expect(events.subscriberCount == 2)
        events.publish(DaemonEvent(.stageQueued, session: "s", stage: "common", key: "k"))
        events.publish(DaemonEvent(.connectivityChanged, connectivity: "offline"))
        events.finish()
        for stream in [first, second] {
            var kinds: [DaemonEvent.Kind] = []
            for await event in stream { kinds.append(event.type) }
            #expect(kinds == [.stageQueued, .connectivityChanged])
        }
        #expect(events.subscriberCount == 0)
        // After the daemon stopped, a new stream ends at once.
        var late = 0
        for await _ in events.subscribe() { late += 1 }
        #expect(late == 0)
    }

    @Test func aSlowSubscriberLosesTheOldestAndNeverBlocksThePublisher() async throws {
        let events = DaemonEvents()
        let stream = events.subscribe()
        for index in 0..<(DaemonEvents.bufferSize + 10) { events.publish(DaemonEvent(.answerAccepted, question: "q\(index)")) }
        events.finish()
        var received: [String] = []
        for await event in stream { received.append(event.question ?? "") }
        #expect(received.count == DaemonEvents.bufferSize)
        #expect(received.first == "q10" && received.last == "q\(DaemonEvents.bufferSize + 9)")
    }

    @Test func aCancelledReaderUnsubscribes() async throws {
        let events = DaemonEvents()
        let reader = Task {
            for await _ in events.subscribe() {}
        }
        #expect(await eventually { events.subscriberCount == 1 })
        reader.cancel()
        #expect(await eventually { events.subscriberCount == 0 })
    }

    @Test func eventsCarryNoAnswerContents() throws {
        let event = DaemonEvent(.answerAccepted, session: "s", question: "email")
        let json = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        #expect(!json.contains("value"))
        #expect(event.line.contains("answer_accepted") && event.line.contains("question email"))
    }
}
