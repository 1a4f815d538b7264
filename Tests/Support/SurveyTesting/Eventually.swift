/// Polls `condition` every `interval` until it holds or `timeout` has passed, and says whether it
/// held: the one wait-until loop of the tests (`#expect(await eventually { … })`). The timeout
/// only bounds a test that is failing; it is never a measurement. It is generous (30 s): while the
/// whole suite starts on two cores, the concurrency pool's threads are busy for seconds with
/// other tests' file work, and a condition that holds in milliseconds alone can take 10 s or more. The result must be used: a
/// wait whose outcome nobody checks lets a test go on as if the condition held.
public func eventually(
    timeout: Duration = .seconds(30),
    every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if try await condition() { return true }
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}
