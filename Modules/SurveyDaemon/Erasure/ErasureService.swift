import ControlAPI
import Logging
import ServiceLifecycle

/// Erases respondents' answers once they have waited their delay (``AnswerErasure``): it sleeps
/// on the injected clock until the oldest waiting answer is due (at least 1 s), then erases
/// everything due. With no answer waiting it sets no timer: it sleeps until answers start to
/// wait (a session closed, ``AnswerErasure/answersMayWait()``, a delivery or a dead letter among
/// `events`). A failed round is logged by the erasure and tried again at the next one.
struct ErasureService: Service {
    let erasure: AnswerErasure
    var clock: any Clock<Duration> = ContinuousClock()
    /// Deliveries and dead letters: their bodies wait in the queue from then on.
    var events: DaemonEvents?

    func run() async throws {
        let wakeup = erasure.sessions.erasureWakeup
        await withTaskGroup(of: Void.self) { group in
            if let stream = events?.subscribe() {
                group.addTask { await wakeup.follow(stream) { [.delivered, .dead].contains($0.type) } }
            }
            await eraseWhenDue(wakeup)
            group.cancelAll()
        }
    }

    private func eraseWhenDue(_ wakeup: DeliveryWakeup) async {
        let timeline = Timeline(clock)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            switch await wakeup.sleep(await erasure.nextRound(), on: timeline) {
            case .stopping: return
            case .woken: continue
            case .deadline: _ = try? await erasure.erase(all: false)
            }
        }
    }
}
