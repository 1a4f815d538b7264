#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One lock per session, so that the requests for a session are handled one at a time while
/// other sessions go on. A request that finds its session's lock held waits in line (first come,
/// first served).
///
/// It belongs to the session manager and is used only from inside it (every call runs on the
/// actor); a lock nobody holds takes no room.
final class SessionLocks {
    /// Sessions whose lock is held, with the requests waiting for it.
    private var held: [UUID: [CheckedContinuation<Void, Never>]] = [:]

    init() {}

    /// Whether a request holds the lock of session `id`.
    func isHeld(_ id: UUID) -> Bool { held[id] != nil }

    /// How many requests wait for the lock of session `id`.
    func waiting(_ id: UUID) -> Int { held[id]?.count ?? 0 }

    /// Takes the lock of session `id`, waiting for the requests before this one.
    func acquire(_ id: UUID, isolation: isolated (any Actor)? = #isolation) async {
        guard held[id] != nil else {
            held[id] = []
            return
        }
        await withCheckedContinuation(isolation: isolation) { held[id, default: []].append($0) }
    }

    /// Gives the lock of session `id` to the next request in line, or frees it.
    func release(_ id: UUID) {
        guard var waiting = held[id], !waiting.isEmpty else {
            held[id] = nil
            return
        }
        let next = waiting.removeFirst()
        held[id] = waiting
        next.resume()
    }
}
