import AsyncHTTPClient
import Foundation
import NIOCore

/// A client of surveyd's control API over its Unix socket (`http+unix`), used by `surveyctl`.
public struct ControlClient: Sendable {
    public let socketPath: String
    let http: HTTPClient
    let timeout: TimeAmount

    /// - Parameters:
    ///   - socketPath: the daemon's control socket.
    ///   - timeout: the longest one request may take.
    public init(socketPath: String, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(30)) {
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
    public func requeue(deadLetter id: String) async throws(ControlClientError) -> DeadLetterView { try await send("POST", "/v1/dead/\(Self.escape(id))/requeue") }

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
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw ControlClientError(kind: .usage, "\(socketPath) cannot be used as a socket path")
        }
        // Fail at once when nothing listens: the HTTP client would retry the connection until its timeout.
        switch UnixSocketProbe.probe(path: socketPath) {
        case .live: break
        case .stale: throw ControlClientError.unavailable(socketPath: socketPath, cause: nil)
        case .unknown(let code): throw ControlClientError.unavailable(socketPath: socketPath, cause: SocketProbeFailure(errno: code))
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
            throw ControlClientError.unavailable(socketPath: socketPath, cause: error)
        }
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(status) else {
            if let reply = try? JSONDecoder().decode(ErrorReply.self, from: data) {
                throw ControlClientError(kind: .api(status: Int(status), code: reply.error.code), reply.error.message, session: reply.session)
            }
            throw ControlClientError(kind: .protocolError, "the daemon answered \(status) without an error body")
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw ControlClientError(kind: .protocolError, "cannot read the daemon's reply (\(error)); surveyctl and surveyd may be of different versions")
        }
    }
}

/// A connect to the control socket that failed otherwise than by a refusal.
struct SocketProbeFailure: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "connecting failed with \(UnixSocketProbe.describe(errno: errno))" }
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
