import Foundation
import Networking
import Synchronization

/// A transport that answers from a script and records every request.
final class FakeTransport: HTTPTransport {
    typealias Handler = @Sendable (TransportRequest) async throws(NetworkError) -> TransportResponse
    private let handler: Handler
    private let log = Mutex<[TransportRequest]>([])
    private let timeoutLog = Mutex<[Duration]>([])

    init(_ handler: @escaping Handler) { self.handler = handler }

    var requests: [TransportRequest] { log.withLock { $0 } }
    /// The timeout each request was sent with, in order.
    var timeouts: [Duration] { timeoutLog.withLock { $0 } }

    func send(_ request: TransportRequest, timeout: Duration) async throws(NetworkError) -> TransportResponse {
        log.withLock { $0.append(request) }
        timeoutLog.withLock { $0.append(timeout) }
        return try await handler(request)
    }
}

struct FixedProbe: ConnectivityProbe {
    let reachable: Bool
    func isReachable() async -> Bool { reachable }
}

final class CountingProbe: ConnectivityProbe {
    let count = Mutex(0)
    let answer = Mutex(true)
    func isReachable() async -> Bool {
        count.withLock { $0 += 1 }
        return answer.withLock { $0 }
    }
}

final class ManualClock: Sendable {
    let now = Mutex(ContinuousClock.now)
}
