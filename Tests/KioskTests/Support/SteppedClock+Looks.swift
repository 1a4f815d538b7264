import SurveyTesting


extension SteppedClock {
    /// Waits (boundedly, 5 s) until the kiosk was looked at `count` times.
    func waitForLooks(_ kiosk: KioskStateHoldTests.Kiosk, _ count: Int) async throws {
        for _ in 0..<5000 where kiosk.looks < count { try await Task.sleep(for: .milliseconds(1)) }
        guard kiosk.looks >= count else { throw Stuck("expected \(count) looks, found \(kiosk.looks)") }
    }
}
