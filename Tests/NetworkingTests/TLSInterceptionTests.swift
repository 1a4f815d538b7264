import AsyncHTTPClient

import Entities
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import SurveyTesting
import Testing
@testable import Networking

/// Over `https`, a network that intercepts the server's address cannot show the server's
/// certificate: the real client (AsyncHTTPClient) meeting a TLS server on loopback with a
/// self-signed certificate for another name sends nothing, and takes it for something answering
/// in the server's place (transient, the portal state), not for a refusal or a dead letter.
@Suite(.timeLimit(.minutes(5)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl makes the test's certificate"))
struct TLSInterceptionTests {
    /// Counts the bytes a TLS connection delivers once decrypted.
    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = Mutex(0)
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes.withLock { $0 += unwrapInboundIn(data).readableBytes }
        }
    }

    @Test func aCertificateForAnotherNameIsNotTheServer() async throws {
        let dir = try TemporaryDirectory(prefix: "tls")
        defer { dir.remove() }
        let made = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=portal.example",
            "-keyout", dir.path + "/key.pem", "-out", dir.path + "/cert.pem",
        ], deadline: .seconds(60))
        try #require(made.status == 0, "\(made.stderr)")
        let certificate = try NIOSSLCertificate(file: dir.path + "/cert.pem", format: .pem)
        let key = try NIOSSLPrivateKey(file: dir.path + "/key.pem", format: .pem)
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let received = Received()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(received)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let tokenFile = dir.path + "/token"
        try "tls-secret".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(5))
        let monitor = ConnectivityMonitor(probe: TCPConnectProbe(host: "127.0.0.1", port: port), reuse: .zero)
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "https://127.0.0.1:\(port)")!, readTimeout: .seconds(10), tokenFile: tokenFile),
            transport: AsyncHTTPClientTransport(client: http), connectivity: monitor, logger: Logger(label: "test"))
        var failure: NetworkError?
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: AnswersUpload(answers: ["name": .string("Kim")]), idempotencyKey: "k")
        } catch {
            failure = error
        }
        try await http.shutdown()
        try await server.close()
        let error = try #require(failure, "the upload went through")
        #expect(error.code == .notTheServer, "\(error)")
        #expect(error.isTransient)
        #expect(await monitor.status.state == .portal)
        #expect(received.bytes.withLock { $0 } == 0, "the interceptor decrypted what was sent")
    }
}
