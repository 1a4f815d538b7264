#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Why a TLS handshake with the survey server failed, told apart by the certificate it presented:
/// a second handshake takes the peer's leaf certificate without judging it (and sends nothing),
/// and its dates are compared with the wall clock and this build's date (``BuildDate``).
///
/// - not valid yet: the clock is behind (never set, or set from a stale saved time):
///   ``PortalSighting/Kind/clockNotSet``;
/// - expired while the wall clock is earlier than this build's date: the clock is not set either;
/// - expired with a plausible clock: ``PortalSighting/Kind/certificateExpired``;
/// - valid dates (so another name, or an issuer no trusted authority vouches for), or no
///   certificate to look at: something answers in the server's place, ``PortalSighting/Kind/portal``.
enum TLSDiagnosis {
    /// The verdict on a certificate valid from `notBefore` to `notAfter` (seconds since 1970).
    static func kind(notBefore: Int, notAfter: Int, now: Date, buildDate: Date) -> PortalSighting.Kind {
        let seconds = Int(now.timeIntervalSince1970)
        if seconds < notBefore { return .clockNotSet }
        if seconds > notAfter { return now < buildDate ? .clockNotSet : .certificateExpired }
        return .portal
    }

    /// The leaf certificate `host:port` presents, or nil when none came within `timeout`.
    static func peerLeaf(host: String, port: Int, timeout: Duration) async -> NIOSSLCertificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        // Verified by the callback below, which keeps the chain and ends the handshake.
        configuration.certificateVerification = .noHostnameVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let captured = Captured()
        let serverName = isIPAddress(host) ? nil : host
        let amount = TimeAmount(saturating: timeout)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(amount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName, customVerificationCallback: { certificates, verdict in
                        captured.leaf.withLock { $0 = certificates.first }
                        // Nothing is sent on this connection: the handshake ends here.
                        verdict.succeed(.failed)
                    })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return nil }
        let deadline = channel.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        deadline.cancel()
        return captured.leaf.withLock { $0 }
    }

    /// The leaf the verification callback saw.
    final class Captured: Sendable {
        let leaf = Mutex<NIOSSLCertificate?>(nil)
    }

    /// What a failed handshake with `url`'s host means.
    static func diagnose(url: String, now: Date, buildDate: Date, timeout: Duration) async -> (kind: PortalSighting.Kind, detail: String?) {
        guard let parsed = URL(string: url), let host = parsed.host else { return (.portal, nil) }
        let port = parsed.port ?? 443
        guard let leaf = await peerLeaf(host: unbracketed(host), port: port, timeout: timeout) else { return (.portal, nil) }
        let notBefore = Int(leaf.notValidBefore)
        let notAfter = Int(leaf.notValidAfter)
        let detail = "the certificate is valid from \(Date(timeIntervalSince1970: Double(notBefore))) to \(Date(timeIntervalSince1970: Double(notAfter))); this device's clock says \(now)"
        return (kind(notBefore: notBefore, notAfter: notAfter, now: now, buildDate: buildDate), detail)
    }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: unbracketed(host), port: 0)) != nil
    }

    /// An IPv6 host without the brackets a URL writes it in.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
