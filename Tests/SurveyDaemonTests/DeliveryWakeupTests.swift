@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// The delivery worker's wake signal: no wake is lost, and wakes nobody waited for count as one.
@Suite(.timeLimit(.minutes(5))) struct DeliveryWakeupTests {
    @Test func wakesBeforeAWaitAreOneAndAResetForgetsThem() async {
        let wakeup = DeliveryWakeup()
        wakeup.wake()
        wakeup.wake()
        await wakeup.wait()  // returns at once: woken before
        #expect(wakeup.wakes == 2)
        wakeup.wake()
        wakeup.reset()
        // Neither the two coalesced wakes nor the forgotten one end this wait: only a new wake does.
        let ended = Flag()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await wakeup.wait()
                ended.value.withLock { $0 = true }
            }
            // Parked: from here on only a wake can end it.
            #expect(await eventually(every: .milliseconds(1)) { wakeup.isWaiting })
            #expect(!ended.value.withLock { $0 }, "a wait ended without a new wake")
            wakeup.wake()
        }
        #expect(ended.value.withLock { $0 })
    }
}

final class Flag: Sendable {
    let value = Mutex(false)
}
