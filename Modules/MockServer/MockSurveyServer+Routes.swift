import Entities
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

extension MockSurveyServer {
    static let maxBody = 1 << 20

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/healthz") { _, _ in Self.json(200, ["status": "ok"]) }
        router.get("/portal/login") { _, _ in Self.loginPage(status: .ok) }
        router.post("/portal/login") { _, _ in Self.loginPage(status: .ok) }
        router.get("/api/question/{typeID}") { [self] request, context in
            if let portal = portalResponse() { return portal }
            let typeID = context.parameters.get("typeID") ?? ""
            return await handleQuestion(typeID: typeID, lang: lang(of: request))
        }
        router.post("/api/answers/{typeID}") { [self] request, context in
            if let portal = portalResponse() { return portal }
            let typeID = context.parameters.get("typeID") ?? ""
            let key = request.headers[.init("Idempotency-Key")!]
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: Self.maxBody) } catch {
                return Self.json(413, ["message": "The body is larger than \(Self.maxBody) bytes."])
            }
            if let token = state.withLock({ $0.faults.faults.requiredToken }), request.headers[.authorization] != "Bearer \(token)" {
                return Self.json(401, ["message": "The bearer token is missing or not valid."])
            }
            let sender = Sender(
                deviceId: request.headers[.init("Survey-Device-Id")!], sequence: request.headers[.init("Survey-Sequence")!],
                paradata: request.headers[.init("Survey-Paradata")!], quality: request.headers[.init("Survey-Quality")!],
                consent: request.headers[.init("Survey-Consent")!])
            return await handleAnswers(typeID: typeID, lang: lang(of: request), key: key, body: Data(body.readableBytesView), sender: sender)
        }
        router.get("/admin/faults") { [self] _, _ in
            Self.encoded(200, state.withLock { $0.faults.faults })
        }
        router.post("/admin/faults") { [self] request, _ in
            let body = try await request.body.collect(upTo: 64 << 10)
            guard let faults = try? JSONDecoder().decode(Faults.self, from: Data(body.readableBytesView)) else {
                return Self.json(400, ["message": "The body must be a JSON object of fault settings (see doc/mock-server.md)."])
            }
            if let problem = faults.problem { return Self.json(400, ["message": problem]) }
            setFaults(faults)
            return Self.encoded(200, faults)
        }
        return router
    }

    private func lang(of request: Request) -> String {
        request.uri.queryParameters.get("lang") ?? "ko"
    }

    /// Applies latency and the next fault: a response to send instead, or nil and whether to reject.
    private func injectFault(isUpload: Bool) async -> (response: Response?, reject: Bool) {
        let action = state.withLock { $0.faults.next(isUpload: isUpload) }
        return (await response(for: action), action == .reject)
    }

    private func response(for action: FaultAction) async -> Response? {
        let faults = state.withLock { $0.faults.faults }
        if faults.latencyMilliseconds > 0 { try? await Task.sleep(for: .milliseconds(faults.latencyMilliseconds)) }
        let retryAfter = faults.retryAfterSeconds
        switch action {
        case .pass, .reject: return nil
        case .unavailable: return Self.json(503, ["message": "injected fault: unavailable"], retryAfter: retryAfter)
        case .tooManyRequests: return Self.json(429, ["message": "injected fault: too many requests"], retryAfter: retryAfter)
        case .serverError: return Self.json(500, ["message": "injected fault: server error"])
        case .malformed: return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"status\": 200, \"data\": ")))
        case .hang:
            // Accept and never answer, until the server stops or the client goes away.
            while !Task.isCancelled, !state.withLock({ $0.stopping }) {
                try? await Task.sleep(for: .milliseconds(50))
            }
            return Self.json(503, ["message": "injected fault: hang ended by shutdown"])
        }
    }

    private func questionFile(typeID: String, lang: String) -> URL? {
        let safe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard !typeID.isEmpty, !lang.isEmpty,
              typeID.unicodeScalars.allSatisfy(safe.contains), lang.unicodeScalars.allSatisfy(safe.contains) else { return nil }
        let file = configuration.fixtures.appendingPathComponent("questions/\(typeID).\(lang).json")
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    func handleQuestion(typeID: String, lang: String) async -> Response {
        if let fault = await injectFault(isUpload: false).response { return fault }
        if state.withLock({ $0.faults.faults.emptyQuestionnaireStage }) == typeID { return Response(status: .ok) }
        guard let file = questionFile(typeID: typeID, lang: lang), let data = try? Data(contentsOf: file) else {
            return Self.json(404, ["message": "No questionnaire for typeID '\(typeID)' in language '\(lang)'."])
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The optional fleet headers of an upload, recorded as they came.
    struct Sender: Sendable {
        var deviceId: String?
        var sequence: String?
        var paradata: String?
        var quality: String?
        var consent: String?
    }

    func handleAnswers(typeID: String, lang: String, key: String?, body: Data, sender: Sender = Sender()) async -> Response {
        let arrived = Date()
        if let key, let stored = state.withLock({ $0.replies[key] }) {
            guard stored.body == body else {
                return Self.json(422, ["message": "Idempotency-Key '\(key)' was already used with a different body."])
            }
            return Response(status: .init(code: stored.status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: stored.payload)))
        }
        let fault = await injectFault(isUpload: true)
        if let response = fault.response { return response }
        return await accept(typeID: typeID, lang: lang, key: key, body: body, sender: sender, arrived: arrived, reject: fault.reject)
    }

    private func accept(typeID: String, lang: String, key: String?, body: Data, sender: Sender, arrived: Date, reject rejected: Bool) async -> Response {
        guard let file = questionFile(typeID: typeID, lang: lang), let definition = try? Data(contentsOf: file) else {
            return Self.json(404, ["message": "No questionnaire for typeID '\(typeID)' in language '\(lang)'."])
        }
        let upload: AnswersUpload
        do { upload = try AnswersUpload.decode(body) } catch {
            return Self.json(400, ["message": "The body must be {\"answers\": {name: value}}: \(error.message)"])
        }
        let required = requiredNames(file: file.path, definition: definition, stage: typeID)
        let missing = required.filter { upload.answers[$0] == nil }
        if !missing.isEmpty {
            return Self.json(400, ["message": "Required answers missing for stage \(typeID): \(missing.joined(separator: ", "))."])
        }
        let result = rejected ? AnswersResult(isSuccess: false) : AnswersResult(isSuccess: true, nextTypeId: routing.next(after: typeID, answers: upload.answers))
        let payload = result.encodedResponse()
        // Remember first, so that a concurrent replay sees it; record only a new, accepted submission.
        let isNew: Bool = state.withLock { state in
            if let key {
                if state.replies[key] != nil { return false }
                state.replies[key] = StoredReply(body: body, status: 200, payload: payload)
            }
            if result.isSuccess { state.accepted += 1 }
            return true
        }
        if !isNew, let key, let stored = state.withLock({ $0.replies[key] }) {
            if stored.body != body { return Self.json(422, ["message": "Idempotency-Key '\(key)' was already used with a different body."]) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: stored.payload)))
        }
        if result.isSuccess, let recorder {
            let line = RecordedSubmission(typeID: typeID, lang: lang, idempotencyKey: key, answers: upload.answers, nextTypeId: result.nextTypeId, deviceId: sender.deviceId, sequence: sender.sequence, paradata: sender.paradata, quality: sender.quality, consent: sender.consent, receivedAt: Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(arrived))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            do { try await recorder.append(try encoder.encode(line)) } catch {
                logger.error("cannot append to the record file", metadata: ["error": "\(error)"])
            }
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: payload)))
    }

    /// The names of the required questions of a questionnaire, decoded once per file content.
    private func requiredNames(file: String, definition: Data, stage: String) -> [String] {
        if let known = state.withLock({ $0.requiredNames[file] }), known.definition == definition { return known.names }
        let names = (try? Questionnaire.decode(response: definition, stage: stage))?.forms.filter(\.isRequired).map(\.name) ?? []
        state.withLock { $0.requiredNames[file] = (definition, names) }
        return names
    }

    static func json(_ status: Int, _ object: [String: String], retryAfter: Int? = nil) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var response = Response(status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    static func encoded(_ status: Int, _ value: some Encodable) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
