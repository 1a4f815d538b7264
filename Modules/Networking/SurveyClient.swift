/// The Networking module: surveyd's client for the survey server (`doc/survey-server-api.md`).
///
/// `SurveyClient` fetches questionnaires and uploads answers through an `HTTPTransport`
/// (`AsyncHTTPClientTransport` in production). Every call is preceded by a connectivity check
/// (`ConnectivityMonitor`); offline means the call fails at once and nothing is sent. Failures are
/// `NetworkError`s classified transient or permanent; `RetryPolicy` says when to try again.
public import Entities
public import Foundation
public import Logging
public import NIOCore

/// How the client reaches the server.
public struct SurveyClientConfiguration: Sendable {
    /// `http://host:port` or `https://host:port`, optionally with a path prefix.
    public var baseURL: URL
    public var connectTimeout: Duration
    /// The longest wait for a whole response.
    public var readTimeout: Duration
    public var userAgent: String
    /// A file holding a bearer token; read at the first call and again once after a 401.
    public var tokenFile: String?
    /// This kiosk's id, sent as `Survey-Device-Id` with every upload (none when nil).
    public var deviceID: String?

    public init(baseURL: URL, connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(30), userAgent: String = "surveyd", tokenFile: String? = nil, deviceID: String? = nil) {
        self.baseURL = baseURL
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.userAgent = userAgent
        self.tokenFile = tokenFile
        self.deviceID = deviceID
    }
}

/// The survey server client.
public actor SurveyClient {
    public let configuration: SurveyClientConfiguration
    private let transport: any HTTPTransport
    private let connectivity: ConnectivityMonitor
    private let logger: Logger
    /// The bearer token from the configuration's token file (shared with the connectivity
    /// monitor's server check).
    public nonisolated let token: BearerTokenFile
    private var fetches: [FetchKey: Task<Data, any Error>] = [:]
    /// URLs built so far, by path and language (percent-encoding is slow on Linux, and a
    /// daemon calls the same few URLs again and again).
    private var urls: [URLKey: String] = [:]

    private struct FetchKey: Hashable { var typeID: String; var lang: String }
    private struct URLKey: Hashable { var path: String; var lang: String }

    public init(configuration: SurveyClientConfiguration, transport: any HTTPTransport, connectivity: ConnectivityMonitor, token: BearerTokenFile? = nil, logger: Logger) {
        self.configuration = configuration
        self.token = token ?? BearerTokenFile(path: configuration.tokenFile)
        self.transport = transport
        self.connectivity = connectivity
        self.logger = logger
    }

    /// The connectivity state and when it last changed.
    public var connectivityStatus: ConnectivityStatus {
        get async { await connectivity.status }
    }

    /// `GET /api/question/{typeID}?lang=`: the stage's questionnaire, definition-checked.
    /// Concurrent fetches of the same (typeID, lang) share one request.
    /// - Parameter knownAnswerNames: answers of earlier stages that its rules may refer to.
    public func fetchQuestionnaire(typeID: String, lang: String, knownAnswerNames: Set<String> = []) async throws(NetworkError) -> Questionnaire {
        let body = try await fetchQuestionnaireResponse(typeID: typeID, lang: lang)
        do {
            return try Questionnaire.decode(response: body, stage: typeID, knownAnswerNames: knownAnswerNames)
        } catch {
            throw NetworkError(.invalidDefinition, "The questionnaire for stage \(typeID) (\(lang)) has errors: \(error). Fix the survey definition on the server.", cause: error)
        }
    }

    /// `GET /api/question/{typeID}?lang=`: the response body as it came (for a cache to keep),
    /// after a successful status. Concurrent fetches of the same (typeID, lang) share one request.
    public func fetchQuestionnaireResponse(typeID: String, lang: String) async throws(NetworkError) -> Data {
        try Self.checkTypeID(typeID)
        let key = FetchKey(typeID: typeID, lang: lang)
        let task: Task<Data, any Error>
        if let running = fetches[key] {
            task = running
        } else {
            task = Task { try await self.fetchBody(typeID: typeID, lang: lang) }
            fetches[key] = task
        }
        defer { if fetches[key] == task { fetches[key] = nil } }
        do {
            return try await task.value
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError(.connectionFailed, "Fetching \(typeID) failed unexpectedly: \(error).", cause: error)
        }
    }

    /// The questionnaire's body, once it is known to be the server's envelope.
    private func fetchBody(typeID: String, lang: String) async throws(NetworkError) -> Data {
        let (response, url) = try await call(method: "GET", path: "api/question/\(typeID)", lang: lang, headers: [:], body: nil)
        if let mismatch = ServerReply.questionnaireMismatch(response) {
            throw await oddReply(mismatch, redirect: nil, status: response.status, url: url, method: "GET")
        }
        return response.body
    }

    /// `POST /api/answers/{typeID}?lang=` with `Idempotency-Key: idempotencyKey`.
    /// `isSuccess: false` is thrown as a permanent `.rejectedAnswers` error.
    public func uploadAnswers(typeID: String, lang: String, answers: AnswersUpload, idempotencyKey: String) async throws(NetworkError) -> AnswersResult {
        try await uploadAnswers(typeID: typeID, lang: lang, body: ByteBuffer(bytes: answers.encoded()), idempotencyKey: idempotencyKey)
    }

    /// The same with an upload body encoded already (`AnswersUpload.encoded()`), sent byte for
    /// byte: a queued submission goes out exactly as it was stored, on every attempt, in the
    /// buffer the queue read it into. With a `sequence` (the submission's place in the queue) the
    /// request carries `Survey-Sequence`; with a configured device id, `Survey-Device-Id`; with
    /// the version of the consent notice the respondent agreed to, `Survey-Consent`.
    public func uploadAnswers(typeID: String, lang: String, body: ByteBuffer, idempotencyKey: String, sequence: UInt64? = nil, consent: String? = nil) async throws(NetworkError) -> AnswersResult {
        try Self.checkTypeID(typeID)
        var headers = ["Content-Type": "application/json", "Idempotency-Key": idempotencyKey]
        if let deviceID = configuration.deviceID { headers["Survey-Device-Id"] = deviceID }
        if let sequence { headers["Survey-Sequence"] = String(sequence) }
        if let consent { headers["Survey-Consent"] = consent }
        let (response, url) = try await call(method: "POST", path: "api/answers/\(typeID)", lang: lang, headers: headers, body: body)
        let result: AnswersResult
        switch ServerReply.upload(response) {
        case .answers(let answers):
            result = answers
        case .undecodable(let detail):
            throw NetworkError(.undecodableResponse, "The survey server's answer to the upload for \(typeID) could not be read (\(detail)), so whether it stored the answers is unknown. The upload is sent again with the same Idempotency-Key, a few times, then kept aside; check the server version if it persists.", status: response.status)
        case .notTheServer(let description):
            throw await oddReply(description, redirect: nil, status: response.status, url: url, method: "POST")
        }
        guard result.isSuccess else {
            throw NetworkError(.rejectedAnswers, "The survey server rejected the answers for \(typeID) (isSuccess: false); retrying the same answers will not help. Inspect them and requeue or drop them.", status: response.status)
        }
        return result
    }

    /// Checks connectivity, sends, re-reads the token once on 401 and classifies the status: a
    /// redirect the client does not follow, a 511 and a 4xx that is not the server's refusal in
    /// JSON are not the survey server's answers. Returns the response and the URL that answered it.
    private func call(method: String, path: String, lang: String, headers: [String: String], body: ByteBuffer?) async throws(NetworkError) -> (TransportResponse, String) {
        let url = try makeURL(path: path, lang: lang)
        guard await connectivity.isReachable() else {
            if let portal = await connectivity.status.portal {
                switch portal.kind {
                case .portal:
                    throw NetworkError(.notTheServer, "Something else answers in the place of the survey server at \(configuration.baseURL.absoluteString) (\(portal.answer)), e.g. a Wi-Fi login page; nothing was sent. The call will be made once the server itself answers: accept the network's terms or use another network.", status: portal.status, redirect: portal.redirect)
                case .clockNotSet:
                    throw NetworkError(.clockNotSet, "This device's clock is not set, so the survey server's certificate cannot be checked (\(portal.answer)); nothing was sent. Set the clock (or let NTP set it); the call is made again at once when it steps.")
                case .certificateExpired:
                    throw NetworkError(.certificateExpired, "The survey server's certificate expired (\(portal.answer)); nothing was sent. Renew the certificate on the server; the call will be made once the handshake succeeds.")
                }
            }
            throw NetworkError(.offline, "The survey server at \(configuration.baseURL.absoluteString) cannot be reached (connectivity check); nothing was sent. The call will be made when it is back; check the network if this lasts.")
        }
        var (response, answered) = try await send(method: method, url: url, headers: headers, body: body, reloadToken: false)
        if response.status == 401, configuration.tokenFile != nil {
            logger.info("survey server answered 401; reading the token file again", metadata: ["url": "\(url)"])
            (response, answered) = try await send(method: method, url: url, headers: headers, body: body, reloadToken: true)
        }
        if let elsewhere = ServerReply.elsewhere(response, url: answered, base: configuration.baseURL) {
            throw await oddReply(elsewhere.answer, redirect: elsewhere.redirect, status: response.status, url: url, method: method)
        }
        guard (200 ..< 300).contains(response.status) else {
            if (400 ..< 500).contains(response.status), response.status != 408, response.status != 429,
               let mismatch = ServerReply.refusalMismatch(response) {
                throw await oddReply(mismatch, redirect: nil, status: response.status, url: url, method: method)
            }
            let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.parse($0, serverDate: response.headers["date"], now: Date()) }
            throw NetworkError.forStatus(response.status, url: url, retryAfter: retryAfter, body: String(decoding: response.body, as: UTF8.self))
        }
        return (response, answered)
    }

    /// A reply that is not the survey server's (`answer` says what it was). One such reply is not
    /// yet a portal: the connectivity monitor asks the server's identity at once. When something
    /// else answers there too, the state is `portal` and the error says so (nothing decided); when
    /// the server itself answers, the odd reply was this request's own problem: a questionnaire's
    /// is a broken definition of that stage, an upload's an unreadable reply (outcome unknown).
    private func oddReply(_ answer: String, redirect: String?, status: Int?, url: String, method: String) async -> NetworkError {
        switch await connectivity.checkOddReply(answer: answer, redirect: redirect, status: status) {
        case .somethingElse:
            var message = "Something else answered in the place of the survey server for \(url): \(answer). It is not the server's reply, so nothing is decided: the call is made again once the survey server itself answers. If the network shows a login page (a captive portal), accept its terms or use another network."
            if let redirect, let target = URL(string: redirect), !Redirects.sameOrigin(target, configuration.baseURL) {
                message += " The server URL redirects to \(redirect): set serverURL to it if that is the survey server."
            }
            if let status, status == 401 || status == 403 {
                message += " A \(status) that is not the server's JSON may also be the server refusing the token in a form surveyd does not expect: check the token file."
            }
            return NetworkError(.notTheServer, message, status: status, redirect: redirect)
        case .unreachable:
            return NetworkError(.connectionFailed, "The survey server's address answered \(url) with \(answer), and then nothing answered the check of the server's identity. The call will be retried later; check the network if it persists.", status: status)
        case .server:
            if method == "GET" {
                return NetworkError(.invalidDefinition, "The survey server answered \(url) with \(answer), not its questionnaire envelope, while it answers its identity check as itself: this stage's questionnaire is broken on the server. Fix the survey definition on the server; other stages go on.", status: status)
            }
            return NetworkError(.undecodableResponse, "The survey server's address answered the upload \(url) with \(answer), not the server's reply, while the server answers its identity check as itself; whether it stored the answers is unknown. The upload is sent again with the same Idempotency-Key, a few times, then kept aside; check the server (or a proxy in front of it) if it persists.", status: status)
        }
    }

    private func send(method: String, url: String, headers: [String: String], body: ByteBuffer?, reloadToken: Bool) async throws(NetworkError) -> (TransportResponse, String) {
        var headers = headers
        headers["User-Agent"] = configuration.userAgent
        headers["Accept"] = "application/json"
        if let token = try token.token(reload: reloadToken) { headers["Authorization"] = "Bearer \(token)" }
        // Every HTTP request passes here, after the connectivity check: at debug level the log
        // shows each one (never its body), which is how the end-to-end tests see that nothing is
        // sent while offline.
        logger.debug("sending a request to the survey server", metadata: ["method": "\(method)", "url": "\(url)"])
        do {
            return try await transport.sendFollowingOrigin(
                TransportRequest(method: method, url: url, headers: headers, body: body), origin: configuration.baseURL, timeout: configuration.readTimeout)
        } catch {
            if error.code == .connectionFailed { await connectivity.invalidate() }
            if let kind = error.obstacle { await connectivity.sawSomethingElse(answer: error.message, redirect: nil, kind: kind) }
            throw error
        }
    }

    /// Forgets the token read from the token file, so that the next request reads the file again
    /// (the daemon's reload on SIGHUP).
    public func reloadToken() {
        token.forget()
    }

    /// A typeID names one path segment: letters, digits, `-` and `_`, at most 128 characters. Anything
    /// else (a `/`, `..`, `?`) is refused before a request is sent, as a permanent `rejectedRequest`.
    public static func checkTypeID(_ typeID: String) throws(NetworkError) {
        guard !typeID.isEmpty, typeID.count <= 128,
              typeID.unicodeScalars.allSatisfy({ typeIDAllowed.contains($0) }) else {
            throw NetworkError(.rejectedRequest, "\"\(typeID.prefix(128))\" is not a stage name (typeID): use letters, digits, - and _ only.")
        }
    }

    // Built once: CharacterSet algebra is slow on Linux.
    private static let typeIDAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
    private static let segmentAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))
    private static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))

    private func makeURL(path: String, lang: String) throws(NetworkError) -> String {
        let key = URLKey(path: path, lang: lang)
        if let known = urls[key] { return known }
        let url = try Self.buildURL(base: configuration.baseURL, path: path, lang: lang)
        if urls.count >= 256 { urls.removeAll(keepingCapacity: true) }
        urls[key] = url
        return url
    }

    static func buildURL(base: URL, path: String, lang: String) throws(NetworkError) -> String {
        guard let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https", base.host != nil else {
            throw NetworkError(.configuration, "The base URL \(base.absoluteString) is not http(s)://host[:port]; fix the server URL in the configuration.")
        }
        var text = base.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        let segments = path.split(separator: "/").map { String($0).addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? String($0) }
        let query = lang.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? lang
        return text + segments.joined(separator: "/") + "?lang=" + query
    }
}
