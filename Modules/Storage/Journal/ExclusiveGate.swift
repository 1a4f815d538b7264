// A gate with shared holders and exclusive holders, for the state of one actor: many changes may
// run at once (shared), a compaction runs alone (exclusive). Waiters are let in in the order they
// came (FIFO): a shared request behind a waiting exclusive one waits too, so an exclusive holder is
// never starved, and consecutive shared waiters are let in together.

/// Shared holders or one exclusive holder, granted in arrival order. Owned by one actor and
/// used from its methods: `enterShared`/`enterExclusive` suspend on that actor's executor until
/// the gate is granted, `leaveShared`/`leaveExclusive` hand it on to the next waiters. Waiting is
/// not cancellable. Pair each enter with one leave (`defer`).
///
///     await gate.enterShared()
///     defer { gate.leaveShared() }
public final class ExclusiveGate {
    private enum Waiter {
        case shared(CheckedContinuation<Void, Never>)
        case exclusive(CheckedContinuation<Void, Never>)
    }

    /// How many hold the gate shared.
    public private(set) var sharedHolders = 0
    /// Whether one holds the gate exclusively.
    public private(set) var isHeldExclusively = false
    private var waiters: [Waiter] = []
    private var firstWaiter = 0

    public init() {}

    /// How many wait to be let in.
    public var waitingCount: Int { waiters.count - firstWaiter }

    /// Returns once the gate is held shared: at once when no one holds it exclusively and no one
    /// waits, otherwise after every earlier waiter was let in.
    nonisolated(nonsending) public func enterShared() async {
        if !isHeldExclusively && waitingCount == 0 {
            sharedHolders += 1
            return
        }
        // Let in by `admit`, which counts this holder before resuming it.
        await withCheckedContinuation { waiters.append(.shared($0)) }
    }

    /// Returns once the gate is held exclusively: at once when no one holds it and no one waits,
    /// otherwise after every earlier waiter was let in and every holder has left.
    nonisolated(nonsending) public func enterExclusive() async {
        if !isHeldExclusively && sharedHolders == 0 && waitingCount == 0 {
            isHeldExclusively = true
            return
        }
        await withCheckedContinuation { waiters.append(.exclusive($0)) }
    }

    /// Leaves a shared hold taken with `enterShared`.
    public func leaveShared() {
        precondition(sharedHolders > 0, "ExclusiveGate.leaveShared() without a shared holder")
        sharedHolders -= 1
        admit()
    }

    /// Leaves the exclusive hold taken with `enterExclusive`.
    public func leaveExclusive() {
        precondition(isHeldExclusively, "ExclusiveGate.leaveExclusive() without the exclusive holder")
        isHeldExclusively = false
        admit()
    }

    /// Lets in the waiters at the front that can hold the gate now: shared ones while no one holds
    /// it exclusively, an exclusive one once no one holds it. Stops at the first that must wait.
    private func admit() {
        while firstWaiter < waiters.count, !isHeldExclusively {
            switch waiters[firstWaiter] {
            case .shared(let continuation):
                firstWaiter += 1
                sharedHolders += 1
                continuation.resume()
            case .exclusive(let continuation):
                guard sharedHolders == 0 else { return compactWaiters() }
                firstWaiter += 1
                isHeldExclusively = true
                continuation.resume()
            }
        }
        compactWaiters()
    }

    /// Drops the waiters already let in, once they are most of the array.
    private func compactWaiters() {
        if firstWaiter == waiters.count {
            waiters.removeAll(keepingCapacity: true)
            firstWaiter = 0
        } else if firstWaiter > 64 && firstWaiter * 2 > waiters.count {
            waiters.removeFirst(firstWaiter)
            firstWaiter = 0
        }
    }
}
