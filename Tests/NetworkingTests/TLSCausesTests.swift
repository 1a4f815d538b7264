import AsyncHTTPClient
import Entities
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SurveyTesting
import Testing
@testable import Networking

/// Over `https`, a failed handshake is told apart by the certificate the server presented, with
/// real certificates that a test authority (made by `openssl`) signs with chosen dates: a
/// certificate not valid yet, or expired while the clock is earlier than this build's date, is
/// the clock not set; an expired one with a plausible clock is an expired certificate; one for
/// another name or from an unknown issuer is something answering in the server's place.
@Suite(.timeLimit(.minutes(5)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl makes the test's certificates"))
struct TLSCausesTests {
    /// A test certificate authority and the leaves it signs, in a temporary directory.
    final class Authority {
        let dir: TemporaryDirectory
        var path: String { dir.path }

        init() async throws {
            dir = try TemporaryDirectory(prefix: "tls-ca")
            try "".write(toFile: dir.path + "/index.txt", atomically: true, encoding: .utf8)
            try "01\n".write(toFile: dir.path + "/serial", atomically: true, encoding: .utf8)
            try """
            [ca]
            default_ca = test
            [test]
            database = index.txt
            new_certs_dir = .
            serial = serial
            default_md = sha256
            policy = any
            unique_subject = no
            [any]
            commonName = supplied
            """.write(toFile: dir.path + "/ca.cnf", atomically: true, encoding: .utf8)
            try await Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=surveyd test authority", "-keyout", "ca.key", "-out", "ca.pem"], in: dir.path)
        }

        static func openssl(_ arguments: [String], in directory: String) async throws {
            let made = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, currentDirectory: URL(fileURLWithPath: directory), deadline: .seconds(60))
            try #require(made.status == 0, "openssl \(arguments.joined(separator: " ")): \(made.stderr)")
        }

        /// A leaf for `subjectAltName` (e.g. `IP:127.0.0.1`), valid from `start` to `end`
        /// (`YYYYMMDDHHMMSSZ`; nil: from now, for 30 days); returns its certificate and key files.
        func leaf(_ name: String, subjectAltName: String, start: String?, end: String?) async throws -> (certificate: String, key: String) {
            try "[leaf]\nsubjectAltName = \(subjectAltName)\n".write(toFile: path + "/\(name).ext", atomically: true, encoding: .utf8)
            try await Self.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(name)", "-keyout", "\(name).key", "-out", "\(name).csr"], in: path)
            var dates = ["-days", "30"]
            if let start, let end { dates = ["-startdate", start, "-enddate", end] }
            try await Self.openssl(["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "\(name).csr", "-out", "\(name).pem", "-notext", "-extfile", "\(name).ext", "-extensions", "leaf"] + dates, in: path)
            return (path + "/\(name).pem", path + "/\(name).key")
        }

        /// A self-signed certificate for 127.0.0.1, valid now: an issuer nobody trusts.
        func selfSigned() async throws -> (certificate: String, key: String) {
            try await Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "self.key", "-out", "self.pem"], in: path)
            return (path + "/self.pem", path + "/self.key")
        }
    }

    enum Leaf: String, CaseIterable, Sendable {
        case expired, notValidYet, anotherName, unknownIssuer
    }

    static let cases: [(Leaf, Bool, NetworkError.Code, ConnectivityStatus.State)] = [
        (.expired, false, .certificateExpired, .certificateExpired),
        (.expired, true, .clockNotSet, .clockNotSet),
        (.notValidYet, false, .clockNotSet, .clockNotSet),
        (.anotherName, false, .notTheServer, .portal),
        (.unknownIssuer, false, .notTheServer, .portal),
    ]

    /// - Parameter clockBeforeBuild: this build's date is moved past the wall clock, as on a
    ///   device whose clock was never set.
    @Test(arguments: cases)
    func aFailedHandshakeNamesItsCause(leaf: Leaf, clockBeforeBuild: Bool, code: NetworkError.Code, state: ConnectivityStatus.State) async throws {
        let authority = try await Authority()
        defer { authority.dir.remove() }
        let files: (certificate: String, key: String)
        switch leaf {
        case .expired: files = try await authority.leaf("expired", subjectAltName: "IP:127.0.0.1", start: "20200101000000Z", end: "20200201000000Z")
        case .notValidYet: files = try await authority.leaf("later", subjectAltName: "IP:127.0.0.1", start: "20990101000000Z", end: "20990201000000Z")
        case .anotherName: files = try await authority.leaf("other", subjectAltName: "DNS:portal.example", start: nil, end: nil)
        case .unknownIssuer: files = try await authority.selfSigned()
        }
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: files.key, format: .pem))))
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)

        var configuration = AsyncHTTPClientTransport.clientConfiguration(connectTimeout: .seconds(5))
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.path + "/ca.pem"))
        configuration.tlsConfiguration = tls
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var transport = AsyncHTTPClientTransport(client: http)
        if clockBeforeBuild { transport.buildDate = Date(timeIntervalSince1970: 4_102_444_800) } // 2100-01-01
        let monitor = ConnectivityMonitor(probe: TCPConnectProbe(host: "127.0.0.1", port: port), reuse: .zero)
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "https://127.0.0.1:\(port)")!, readTimeout: .seconds(10)),
            transport: transport, connectivity: monitor, logger: Logger(label: "test"))
        var failure: NetworkError?
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: AnswersUpload(answers: ["name": .string("Kim")]), idempotencyKey: "k")
        } catch {
            failure = error
        }
        try await http.shutdown()
        try await server.close()
        let error = try #require(failure, "the upload went through")
        #expect(error.code == code, "\(leaf) \(clockBeforeBuild): \(error)")
        #expect(error.isTransient, "nothing is decided about the upload")
        let status = await monitor.status
        #expect(status.state == state, "\(leaf): \(status)")
        #expect(status.portal?.kind == PortalSighting.Kind(rawValue: state.rawValue), "\(status)")
        switch code {
        case .clockNotSet: #expect(error.message.contains("clock is not set") && error.message.contains("set the clock"), "\(error.message)")
        case .certificateExpired: #expect(error.message.contains("expired") && error.message.contains("Renew the certificate on the server"), "\(error.message)")
        default: #expect(error.message.contains("not the survey server's"), "\(error.message)")
        }
    }

    @Test func datesDecideTheCause() {
        let build = Date(timeIntervalSince1970: 1_800_000_000)
        let year = 365 * 86_400
        #expect(TLSDiagnosis.kind(notBefore: 1_800_000_000 + year, notAfter: 1_800_000_000 + 2 * year, now: build + 10, buildDate: build) == .clockNotSet)
        #expect(TLSDiagnosis.kind(notBefore: 0, notAfter: 1_700_000_000, now: build + 10, buildDate: build) == .certificateExpired)
        #expect(TLSDiagnosis.kind(notBefore: 0, notAfter: 1_700_000_000, now: build - 200_000_000, buildDate: build) == .portal)
        #expect(TLSDiagnosis.kind(notBefore: 0, notAfter: 1_600_000_000, now: build - 100_000_000, buildDate: build) == .clockNotSet)
        #expect(TLSDiagnosis.kind(notBefore: 0, notAfter: 1_900_000_000, now: build, buildDate: build) == .portal)
    }
}
