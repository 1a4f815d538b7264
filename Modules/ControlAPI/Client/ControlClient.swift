public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client of surveyd's control API over its Unix socket (`http+unix`), used by `surveyctl`.
public struct ControlClient: Sendable {
    public let socketPath: String
    let http: HTTPClient
    let timeout: TimeAmount

    /// - Parameters:
    ///   - socketPath: the daemon's control socket.
    ///   - httpClient: the HTTP client; the default one fails a request at once when its
    ///     connection cannot be made (nothing listens), instead of retrying until the timeout.
    ///   - timeout: the longest one request may take.
    public init(socketPath: String, httpClient: HTTPClient = ControlClient.sharedHTTPClient, timeout: Duration = .seconds(30)) {
        self.socketPath = socketPath
        self.http = httpClient
        let (seconds, attoseconds) = timeout.components
        self.timeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    public func status() async throws(ControlClientError) -> StatusView { try await send("GET", "/v1/status") }
    public func startSession(_ request: StartSessionRequest) async throws(ControlClientError) -> SessionView { try await send("POST", "/v1/sessions", body: request) }
    public func answer(_ request: AnswerRequest) async throws(ControlClientError) -> AnswerReply { try await send("POST", "/v1/answers", body: request) }
    public func session(id: String) async throws(ControlClientError) -> SessionView { try await send("GET", "/v1/sessions/\(Self.escape(id))") }
    public func flush(_ request: FlushRequest) async throws(ControlClientError) -> FlushReply { try await send("POST", "/v1/flush", body: request) }
    public func deadLetters() async throws(ControlClientError) -> [DeadLetterView] { try await send("GET", "/v1/dead") }
    public func resume() async throws(ControlClientError) -> ResumeReply { try await send("POST", "/v1/resume") }
    public func requeue(deadLetter id: String, _ request: RequeueRequest = RequeueRequest()) async throws(ControlClientError) -> DeadLetterView { try await send("POST", "/v1/dead/\(Self.escape(id))/requeue", body: request) }

    /// The HTTP client of every `ControlClient` that is not given one, for the life of the
    /// process (like `HTTPClient.shared`). A failed connect fails the request at once: on a
    /// Unix socket a refusal or a missing file means no daemon listens, and retrying until the
    /// timeout would only keep the operator waiting.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }

    func send<Reply: Decodable>(_ method: String, _ path: String) async throws(ControlClientError) -> Reply {
        try await send(method, path, bodyData: nil)
    }

    func send<Reply: Decodable, Body: Encodable>(_ method: String, _ path: String, body: Body) async throws(ControlClientError) -> Reply {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw ControlClientError(kind: .protocolError, "cannot encode the request: \(error)")
        }
        return try await send(method, path, bodyData: data)
    }

    func send<Reply: Decodable>(_ method: String, _ path: String, bodyData: Data?) async throws(ControlClientError) -> Reply {
        let (status, data) = try await exchange(method, path, bodyData: bodyData)
        guard (200..<300).contains(status) else { throw Self.failure(status: status, data) }
        return try Self.decode(Reply.self, data)
    }

    /// The error a reply with a status outside 2xx stands for.
    static func failure(status: UInt, _ data: Data) -> ControlClientError {
        if let reply = try? JSONDecoder().decode(ErrorReply.self, from: data) {
            return ControlClientError(kind: .api(status: Int(status), code: reply.error.code), reply.error.message, session: reply.session)
        }
        return ControlClientError(kind: .protocolError, "the daemon answered \(status) without an error body")
    }

    static func decode<Reply: Decodable>(_ type: Reply.Type, _ data: Data) throws(ControlClientError) -> Reply {
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw ControlClientError(kind: .protocolError, "cannot read the daemon's reply (\(error)); surveyctl and surveyd may be of different versions")
        }
    }

    /// One request; the reply's status and body, whatever the status.
    func exchange(_ method: String, _ path: String, bodyData: Data?) async throws(ControlClientError) -> (status: UInt, body: Data) {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw ControlClientError(kind: .usage, "\(socketPath) cannot be used as a socket path")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        if let bodyData {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: bodyData))
        }
        let status: UInt
        let bytes: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: timeout)
            status = response.status.code
            bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch {
            throw ControlClientError.unavailable(socketPath: socketPath, cause: ConnectFailure(error))
        }
        return (status, Data(bytes.readableBytesView))
    }
}

/// Why a request to the control socket got no reply, told from the connection's own error:
/// the errno of a failed connect (`ECONNREFUSED`, `ENOENT`, `EACCES`, …) with its name, or the
/// HTTP client's description of anything else.
struct ConnectFailure: Error, CustomStringConvertible {
    var description: String

    init(_ error: any Error) {
        if let code = Self.errno(of: error) {
            description = "connecting failed with \(UnixSocketProbe.describe(errno: code))"
        } else {
            description = "\(error)"
        }
    }

    /// The errno of a failed system call somewhere in `error` (NIO reports a failed connect as an
    /// `IOError`, possibly inside a `NIOConnectionError`).
    static func errno(of error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError {
            for attempt in error.connectionErrors {
                if let code = errno(of: attempt.error) { return code }
            }
        }
        return nil
    }
}

/// Why a control request failed.
public struct ControlClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No daemon answers on the socket.
        case daemonUnavailable
        /// The daemon answered with an error reply.
        case api(status: Int, code: String)
        /// The reply could not be read.
        case protocolError
        /// The request could not be made as given.
        case usage
    }

    public var kind: Kind
    public var message: String
    /// The session as it stands, when the daemon's error reply carried it (`question_changed`).
    public var session: SessionView?

    public init(kind: Kind, _ message: String, session: SessionView? = nil) {
        self.kind = kind
        self.message = message
        self.session = session
    }

    static func unavailable(socketPath: String, cause: (any Error)?) -> ControlClientError {
        ControlClientError(
            kind: .daemonUnavailable,
            "no surveyd answers on \(socketPath)\(cause.map { " (\($0))" } ?? ""). Start it with `surveyd` (or `swift run surveyd --demo` to try it), or point --socket / SURVEYD_SOCKET at its socket."
        )
    }

    public var description: String { message }

    /// The API error code, when the daemon sent one.
    public var code: String? {
        if case .api(_, let code) = kind { return code }
        return nil
    }
}
