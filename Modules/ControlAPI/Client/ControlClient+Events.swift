import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

extension ControlClient {
    /// Follows `GET /v1/events` for at most `duration`: calls `body` with each event (the `hello`
    /// line first, sent once the daemon is watching for this client) until `body` returns false,
    /// the daemon stops, or the time is up.
    /// - Returns: why it ended.
    @discardableResult
    public func watchEvents(for duration: Duration, _ body: (DaemonEvent) async throws(ControlClientError) -> Bool) async throws(ControlClientError) -> WatchEnd {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: "/v1/events") else {
            throw ControlClientError(kind: .usage, "\(socketPath) cannot be used as a socket path")
        }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(HTTPClientRequest(url: url.absoluteString), deadline: .now() + .nanoseconds(duration.nanosecondsClamped))
        } catch {
            throw ControlClientError.unavailable(socketPath: socketPath, cause: ConnectFailure(error))
        }
        guard response.status.code == 200 else {
            let bytes = (try? await response.body.collect(upTo: 1 << 20)) ?? ByteBuffer()
            throw Self.failure(status: response.status.code, Data(bytes.readableBytesView))
        }
        // The deadline of the request does not cover reading its body: a timer beside the reader
        // ends the wait, and leaving the group cancels the reader (and the request with it).
        let (items, continuation) = AsyncStream<Result<DaemonEvent, ControlClientError>?>.makeStream()
        let responseBody = response.body
        let end = await withTaskGroup(of: Void.self) { group -> Result<WatchEnd, ControlClientError> in
            group.addTask {
                continuation.yield(await Self.readEvents(responseBody) { continuation.yield(.success($0)) })
                continuation.finish()
            }
            group.addTask {
                try? await Task.sleep(for: duration)
                continuation.finish()
            }
            defer { group.cancelAll() }
            for await item in items {
                switch item {
                case .success(let event):
                    do throws(ControlClientError) {
                        if try await !body(event) { return .success(.stopped) }
                    } catch {
                        return .failure(error)
                    }
                case .failure(let error):
                    return .failure(error)
                case nil:
                    return .success(.daemonStopped)
                }
            }
            return .success(.timedOut)
        }
        return try end.get()
    }

    /// Reads newline-delimited events from `body`, handing each to `yield`; nil when the stream
    /// ended (or was cancelled), else why it broke off.
    static func readEvents(_ body: HTTPClientResponse.Body, yield: (DaemonEvent) -> Void) async -> Result<DaemonEvent, ControlClientError>? {
        var pending: [UInt8] = []
        do {
            for try await chunk in body {
                pending += chunk.readableBytesView
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Data(pending[..<newline])
                    pending.removeSubrange(...newline)
                    guard !line.isEmpty else { continue }
                    yield(try decode(DaemonEvent.self, line))
                }
                if pending.count > 1 << 20 {
                    return .failure(ControlClientError(kind: .protocolError, "an event line of the daemon is longer than 1 MiB"))
                }
            }
        } catch let error as ControlClientError {
            return .failure(error)
        } catch {
            if Task.isCancelled { return nil }
            return .failure(ControlClientError(kind: .protocolError, "the event stream broke off: \(error)"))
        }
        return nil
    }

    /// How ``watchEvents(for:_:)`` ended.
    public enum WatchEnd: Sendable, Hashable {
        /// The caller's `body` returned false.
        case stopped
        /// The daemon ended the stream: it is stopping.
        case daemonStopped
        /// The time given passed.
        case timedOut
    }
}

extension Duration {
    /// The duration in nanoseconds, at most `Int64.max`.
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
