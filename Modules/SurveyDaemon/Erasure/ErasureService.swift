import Logging
import ServiceLifecycle

/// Erases respondents' answers once they have waited their delay (``AnswerErasure``): it sleeps
/// on the injected clock until the oldest waiting answer is due (at most `min(delay, 30 s)`, at
/// least 1 s), then erases everything due. A failed round is logged by the erasure and tried
/// again at the next one.
struct ErasureService: Service {
    let erasure: AnswerErasure
    var clock: any Clock<Duration> = ContinuousClock()

    func run() async throws {
        let timeline = Timeline(clock)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let wait = await erasure.nextRound()
            do {
                try await cancelWhenGracefulShutdown { try await timeline.sleep(wait) }
            } catch {
                return
            }
            _ = try? await erasure.erase(all: false)
        }
    }
}
