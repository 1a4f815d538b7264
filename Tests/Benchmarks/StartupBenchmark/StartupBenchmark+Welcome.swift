// The idle section's welcome-screen scenarios: what looks at the kiosk's welcome screen while the
// daemon's wake-ups are counted. "welcome screen in Chromium": headless Chromium with the page
// open (its script holds one `GET /state?shown=…` request). "polled every 3 s (replayed)": the
// welcome screen's former script, replayed here: `GET /state` every 3 seconds on one kept-alive
// connection, as its `fetch` made them (the welcome page itself is fetched once first).
#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import Foundation
import SurveyTesting

/// A browser on the welcome screen, or the replay of the former poll; stopped after the window.
enum WelcomeVisitor {
    case browser(BackgroundProcess)
    case poll(Task<Void, any Error>)

    static let chromium = "/usr/bin/chromium"

    /// Starts what `scenario` puts on the welcome screen at `url`; nil for the other scenarios.
    static func start(_ scenario: StartupBenchmark.IdleScenario, url: String, directory: String, deadline: Duration) async throws -> WelcomeVisitor? {
        switch scenario {
        case .nothingOpen, .oneSessionOpen:
            return nil
        case .welcomeInBrowser:
            guard FileManager.default.isExecutableFile(atPath: chromium) else {
                throw BenchmarkError("the welcome screen scenario needs Chromium at \(chromium) (Tests/Browser/install.sh)")
            }
            let browser = try await BackgroundProcess.start(
                URL(fileURLWithPath: chromium),
                ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--user-data-dir=\(directory)/chromium", url],
                deadline: deadline)
            // The page is up once its held request waits in the daemon; the settling time covers it.
            return .browser(browser)
        case .welcomePolled:
            guard let port = URL(string: url)?.port else { throw BenchmarkError("no port in \(url)") }
            let connection = try LoopbackHTTP(port: port)
            _ = try connection.get("/")
            return .poll(Task.detached {
                defer { connection.close() }
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(3))
                    _ = try connection.get("/state")
                }
            })
        }
    }

    func stop() async throws {
        switch self {
        case .browser(let process): _ = await process.stop()
        case .poll(let task):
            task.cancel()
            _ = await task.result
        }
    }
}

/// One kept-alive HTTP/1.1 connection to a loopback port, blocking (the benchmark's own thread).
final class LoopbackHTTP: @unchecked Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw BenchmarkError("connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    /// GETs `path` and reads the whole response (by its Content-Length).
    func get(_ path: String) throws -> String {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw BenchmarkError("send: errno \(errno)")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkError("the kiosk closed the connection (recv \(count), errno \(errno))") }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) >= length { return text }
        }
    }

    func close() { Glibc.close(descriptor) }
}
