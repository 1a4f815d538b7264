import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `GET /metrics` and `GET /v1/health` on a loopback TCP address (`metricsListen`), for a
/// Prometheus server or a health check that cannot reach the control socket. Nothing else of the
/// control API is served there; any local user can read it, so the address must be loopback
/// (`DaemonSetting.checkMetricsListen`).
struct MetricsListener: Service {
    let address: MetricsAddress
    let backend: any ControlBackend
    let logger: Logger
    /// Told the bound port once it listens (the configured one, or the one the system chose for 0).
    var onListening: @Sendable (Int) async -> Void = { _ in }

    func run() async throws {
        let router = Router()
        ControlServer.addHealthRoutes(to: router, backend: backend)
        let logger = logger
        let onListening = onListening
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "surveyd"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                logger.info("serving metrics", metadata: ["address": "\(address.host):\(port)"])
                await onListening(port)
            },
            logger: logger)
        do {
            try await app.run()
        } catch {
            throw DaemonStartError("cannot serve metrics on \(address.host):\(address.port) (\(error)); free that port or give another --metrics-listen")
        }
    }
}

/// A loopback `HOST:PORT` to serve metrics on.
public struct MetricsAddress: Sendable, Hashable {
    public var host: String
    public var port: Int

    /// Reads `HOST:PORT` (`[::1]:PORT` for IPv6); nil when it is not one. `localhost`,
    /// `127.0.0.0/8` and `::1` are loopback; anything else is refused by the setting's check.
    public init?(_ text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = Int(port), number <= 65535 else { return nil }
        self.host = String(host)
        self.port = number
    }

    /// Whether the host is a loopback address.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && (Int($0) ?? 256) <= 255 }) else { return false }
        return parts[0] == "127"
    }
}
