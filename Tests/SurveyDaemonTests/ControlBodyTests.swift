import ControlAPI
import Foundation
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Request bodies that do not arrive whole are told apart from bodies that are too large.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlBodyTests {
    static func head(_ extra: String) -> String {
        "POST /v1/answers HTTP/1.1\r\nHost: surveyd\r\nContent-Type: application/json\r\n\(extra)\r\n"
    }

    @Test(arguments: [
        // Shorter than its Content-Length, then the client half-closes.
        (head("Content-Length: 50\r\n") + #"{"values":"#, "body_incomplete", "the request body is incomplete"),
        // Chunks that stop before the last (zero-size) chunk.
        (head("Transfer-Encoding: chunked\r\n") + "5\r\n{\"val\r\n", "body_incomplete", "the request body is incomplete"),
        // A chunk size that is not hexadecimal.
        (head("Transfer-Encoding: chunked\r\n") + "zz\r\n{}\r\n0\r\n\r\n", "body_malformed", "the request body is malformed"),
    ])
    func aBodyCutShortOrMalformedIs400(raw: String, code: String, message: String) async throws {
        try await withControlServer(maxRequestBytes: 4096) { path, backend in
            let reply = try await UnixHTTP.request(socket: path, raw: Data(raw.utf8), halfClose: true)
            #expect(reply.status == 400, "\(reply.status) \(reply.bodyText)")
            let error = try JSONDecoder().decode(ErrorReply.self, from: reply.body)
            #expect(error.error.code == code)
            #expect(error.error.message.hasPrefix(message), "\(error.error.message)")
            #expect(!error.error.message.contains("larger than"), "\(error.error.message)")
            #expect(await backend.answers.isEmpty)
            // The server goes on serving.
            let status = try await ControlClient(socketPath: path).status()
            #expect(status.version == "test")
        }
    }

    @Test func aBodyLargerThanTheLimitIsStill413() async throws {
        try await withControlServer(maxRequestBytes: 2048) { path, _ in
            let body = #"{"values":[""# + String(repeating: "x", count: 3000) + #""]}"#
            let reply = try await UnixHTTP.request(socket: path, raw: Data((Self.head("Content-Length: \(body.utf8.count)\r\n") + body).utf8), halfClose: true)
            #expect(reply.status == 413)
            let error = try JSONDecoder().decode(ErrorReply.self, from: reply.body)
            #expect(error.error.code == "body_too_large")
            #expect(error.error.message.contains("larger than 2048 bytes"), "\(error.error.message)")
        }
    }
}
