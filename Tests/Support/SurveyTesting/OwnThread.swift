import Foundation

/// Runs blocking test I/O (a socket read with a deadline, a wait for a pipe) on a thread of its
/// own and resumes the caller when it is done.
///
/// Not on `DispatchQueue.global()`: on Linux that pool starts with one thread per core and adds
/// about one thread a second while its threads block, so a few hundred tests that each hold a
/// thread for a socket's deadline queue behind one another and time out at the start of a run.
public enum OwnThread {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
