/// A gate with two ways in: any number of holders at once in shared mode, or one holder alone
/// in exclusive mode. Arrivals that cannot enter wait in one line and enter in the order they came
/// (a shared arrival behind a waiting exclusive one waits too, so neither side starves).
///
/// It belongs to one actor and is used only from inside it: every call runs on that actor, and
/// waiting parks a continuation, not a thread. Each `enter…` is paired with its `leave…`,
/// usually through `defer`. The session manager's appends hold it shared and its journal
/// compaction holds it exclusive, so that a compaction sees no append half done.
final class ExclusiveGate {
    private enum Arrival {
        case shared(CheckedContinuation<Void, Never>)
        case exclusive(CheckedContinuation<Void, Never>)
    }

    /// Holders in shared mode now.
    private var sharedHolders = 0
    private var exclusiveHeld = false
    /// Arrivals waiting to enter, first come first.
    private var line: [Arrival] = []

    init() {}

    /// Whether nobody holds the gate or waits for it.
    var isIdle: Bool { sharedHolders == 0 && !exclusiveHeld && line.isEmpty }

    /// Arrivals waiting to enter.
    var waiting: Int { line.count }

    /// Enters in shared mode: at once unless an exclusive holder is in or anyone waits.
    func enterShared(isolation: isolated (any Actor)? = #isolation) async {
        if !exclusiveHeld && line.isEmpty {
            sharedHolders += 1
            return
        }
        await withCheckedContinuation(isolation: isolation) { line.append(.shared($0)) }
    }

    /// Leaves shared mode; the last shared holder to leave lets a waiting exclusive one in.
    func leaveShared() {
        assert(sharedHolders > 0, "leaveShared without enterShared")
        sharedHolders -= 1
        admit()
    }

    /// Enters in exclusive mode: once every holder has left and everyone who came earlier had
    /// their turn.
    func enterExclusive(isolation: isolated (any Actor)? = #isolation) async {
        if !exclusiveHeld && sharedHolders == 0 && line.isEmpty {
            exclusiveHeld = true
            return
        }
        await withCheckedContinuation(isolation: isolation) { line.append(.exclusive($0)) }
    }

    /// Leaves exclusive mode and lets the next in line in.
    func leaveExclusive() {
        assert(exclusiveHeld, "leaveExclusive without enterExclusive")
        exclusiveHeld = false
        admit()
    }

    /// Lets in, from the front of the line, every shared arrival up to the next exclusive one,
    /// or that exclusive one when the gate is empty. An admitted arrival counts as a holder
    /// before it resumes.
    private func admit() {
        while !exclusiveHeld, let first = line.first {
            switch first {
            case .shared(let continuation):
                line.removeFirst()
                sharedHolders += 1
                continuation.resume()
            case .exclusive(let continuation):
                guard sharedHolders == 0 else { return }
                line.removeFirst()
                exclusiveHeld = true
                continuation.resume()
            }
        }
    }
}
