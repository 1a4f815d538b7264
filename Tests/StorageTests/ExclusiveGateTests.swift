import Storage
import SurveyTesting
import Testing

/// An actor that uses the gate as its owners do: entering suspends on the actor, and each grant
/// is logged in the order it happened.
private actor GateUser {
    let gate = ExclusiveGate()
    var granted: [String] = []

    func enter(_ name: String, exclusive: Bool) async {
        if exclusive { await gate.enterExclusive() } else { await gate.enterShared() }
        granted.append(name)
    }

    func leave(exclusive: Bool) {
        if exclusive { gate.leaveExclusive() } else { gate.leaveShared() }
    }

    var waiting: Int { gate.waitingCount }
    var holders: (shared: Int, exclusive: Bool) { (gate.sharedHolders, gate.isHeldExclusively) }
}

/// Waits (up to 10 s) until `user` has `count` waiters, so that tasks queue in a known order.
private func waitForWaiters(_ user: GateUser, _ count: Int) async throws {
    #expect(await eventually(every: .milliseconds(1)) { await user.waiting >= count })
    #expect(await user.waiting == count, "expected \(count) waiters")
}

@Suite(.timeLimit(.minutes(5))) struct ExclusiveGateTests {
    @Test func sharedHoldersHoldTogether() async {
        let user = GateUser()
        await user.enter("a", exclusive: false)
        await user.enter("b", exclusive: false)
        #expect(await user.holders.shared == 2)
        #expect(await user.holders.exclusive == false)
        await user.leave(exclusive: false)
        await user.leave(exclusive: false)
        #expect(await user.holders.shared == 0)
    }

    @Test func anExclusiveHolderWaitsForSharedHoldersAndHoldsAlone() async throws {
        let user = GateUser()
        await user.enter("shared", exclusive: false)
        let exclusive = Task { await user.enter("exclusive", exclusive: true) }
        try await waitForWaiters(user, 1)
        #expect(await user.granted == ["shared"], "the exclusive one waits while a shared one holds")
        await user.leave(exclusive: false)
        await exclusive.value
        #expect(await user.granted == ["shared", "exclusive"])
        #expect(await user.holders.exclusive)
        // A second exclusive one waits for the first.
        let second = Task { await user.enter("second", exclusive: true) }
        try await waitForWaiters(user, 1)
        await user.leave(exclusive: true)
        await second.value
        #expect(await user.granted.last == "second")
        await user.leave(exclusive: true)
        #expect(await user.holders.exclusive == false)
    }

    @Test func waitersAreLetInInArrivalOrderAndSharedOnesBehindAnExclusiveOneWait() async throws {
        let user = GateUser()
        await user.enter("E1", exclusive: true)
        var tasks: [Task<Void, Never>] = []
        for (number, (name, exclusive)) in [("S1", false), ("S2", false), ("E2", true), ("S3", false)].enumerated() {
            tasks.append(Task { await user.enter(name, exclusive: exclusive) })
            try await waitForWaiters(user, number + 1)
        }
        // E1 leaves: S1 and S2 come in together; E2 waits for them, and S3 waits behind E2
        // although only shared holders hold the gate.
        await user.leave(exclusive: true)
        await tasks[0].value
        await tasks[1].value
        #expect(await user.granted == ["E1", "S1", "S2"])
        #expect(await user.holders.shared == 2)
        #expect(await user.waiting == 2)
        await user.leave(exclusive: false)
        #expect(await user.granted == ["E1", "S1", "S2"], "E2 waits until every shared holder has left")
        await user.leave(exclusive: false)
        await tasks[2].value
        #expect(await user.granted == ["E1", "S1", "S2", "E2"])
        #expect(await user.waiting == 1)
        await user.leave(exclusive: true)
        await tasks[3].value
        #expect(await user.granted == ["E1", "S1", "S2", "E2", "S3"])
        await user.leave(exclusive: false)
        let holders = await user.holders
        #expect(holders.shared == 0 && !holders.exclusive)
        #expect(await user.waiting == 0)
    }

    @Test func manyWaitersAreAllLetIn() async throws {
        let user = GateUser()
        await user.enter("first", exclusive: true)
        let names = (0..<100).map { "w\($0)" }
        var tasks: [Task<Void, Never>] = []
        for (number, name) in names.enumerated() {
            tasks.append(Task { await user.enter(name, exclusive: number % 10 == 0) })
            try await waitForWaiters(user, number + 1)
        }
        await user.leave(exclusive: true)
        // Each holder leaves as soon as it is let in; every waiter gets in, in arrival order. Until
        // the last has left, however long a loaded machine takes: a deadline here would end the
        // loop with waiters still outside, and the wait for their tasks below would never return
        // (the suite's time limit ends this loop instead, by cancelling its sleep).
        var left = 0
        while left < names.count {
            let granted = await user.granted.count - 1
            while left < granted {
                await user.leave(exclusive: left % 10 == 0)
                left += 1
            }
            if left < names.count { try await Task.sleep(for: .milliseconds(1)) }
        }
        for task in tasks { await task.value }
        #expect(await user.granted == ["first"] + names)
        #expect(await user.waiting == 0)
    }
}
