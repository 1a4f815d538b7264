import Testing
@testable import SurveyDaemon

/// An actor that owns a gate, as the session manager does, and records who got in.
actor GateHolder {
    let gate = ExclusiveGate()
    private(set) var entered: [String] = []

    func enter(_ name: String, exclusive: Bool) async {
        if exclusive { await gate.enterExclusive() } else { await gate.enterShared() }
        entered.append(name)
    }

    func leave(exclusive: Bool) {
        if exclusive { gate.leaveExclusive() } else { gate.leaveShared() }
    }

    var waiting: Int { gate.waiting }
    var isIdle: Bool { gate.isIdle }

    /// Waits (boundedly) until `count` arrivals wait at the gate.
    func waitForWaiting(_ count: Int) async throws {
        for _ in 0..<5000 where gate.waiting < count { try await Task.sleep(for: .milliseconds(1)) }
        try #require(gate.waiting == count)
    }
}

/// Shared holders together, an exclusive one alone, and everyone in the order they came.
@Suite struct ExclusiveGateTests {
    @Test func sharedHoldersEnterTogether() async {
        let holder = GateHolder()
        await holder.enter("a", exclusive: false)
        await holder.enter("b", exclusive: false)
        #expect(await holder.entered == ["a", "b"])
        #expect(await holder.waiting == 0)
        await holder.leave(exclusive: false)
        #expect(await !holder.isIdle)
        await holder.leave(exclusive: false)
        #expect(await holder.isIdle)
    }

    /// An exclusive arrival waits for the shared holders, and a shared arrival behind it waits
    /// for its turn though only shared holders are in: an exclusive one is never starved.
    @Test func anExclusiveArrivalWaitsForSharedHoldersAndIsNotOvertaken() async throws {
        let holder = GateHolder()
        await holder.enter("append", exclusive: false)
        let compaction = Task { await holder.enter("compaction", exclusive: true) }
        try await holder.waitForWaiting(1)
        let later = Task { await holder.enter("later append", exclusive: false) }
        try await holder.waitForWaiting(2)
        #expect(await holder.entered == ["append"])

        await holder.leave(exclusive: false)
        await compaction.value
        #expect(await holder.entered == ["append", "compaction"])
        #expect(await holder.waiting == 1, "the later append waits while the compaction holds the gate")

        await holder.leave(exclusive: true)
        await later.value
        #expect(await holder.entered == ["append", "compaction", "later append"])
        await holder.leave(exclusive: false)
        #expect(await holder.isIdle)
    }

    /// When an exclusive holder leaves, the shared arrivals at the front of the line enter
    /// together; an exclusive one behind them waits until they have left.
    @Test func sharedArrivalsAtTheFrontEnterTogether() async throws {
        let holder = GateHolder()
        await holder.enter("first compaction", exclusive: true)
        let first = Task { await holder.enter("append 1", exclusive: false) }
        try await holder.waitForWaiting(1)
        let second = Task { await holder.enter("append 2", exclusive: false) }
        try await holder.waitForWaiting(2)
        let compaction = Task { await holder.enter("second compaction", exclusive: true) }
        try await holder.waitForWaiting(3)

        await holder.leave(exclusive: true)
        await first.value
        await second.value
        #expect(await holder.entered == ["first compaction", "append 1", "append 2"])
        #expect(await holder.waiting == 1)
        await holder.leave(exclusive: false)
        #expect(await holder.waiting == 1, "one shared holder is still in")
        await holder.leave(exclusive: false)
        await compaction.value
        #expect(await holder.entered.last == "second compaction")
        await holder.leave(exclusive: true)
        #expect(await holder.isIdle)
    }
}
