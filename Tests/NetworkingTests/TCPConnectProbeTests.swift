import Foundation
import NIOCore
import Synchronization
import Testing
@testable import Networking

/// The connectivity check's route step: an address without a route is offline at once, and no
/// TCP connection is attempted. The route lookup and the connect are injected; nothing is sent.
@Suite(.timeLimit(.minutes(5))) struct TCPConnectProbeTests {
    final class Recorder: Sendable {
        let lookups = Mutex<[String]>([])
        let connects = Mutex<[String]>([])
    }

    func probe(host: String, routed: Bool, accepts: Bool = true, recorder: Recorder) -> TCPConnectProbe {
        TCPConnectProbe(
            host: host, port: 9,
            routeLookup: { address in
                recorder.lookups.withLock { $0.append(address.ipAddress ?? "?") }
                return routed
            },
            connector: { address, _ in
                recorder.connects.withLock { $0.append(address.ipAddress ?? "?") }
                return accepts
            })
    }

    @Test func noRouteIsOfflineWithoutAConnect() async {
        let recorder = Recorder()
        #expect(await probe(host: "203.0.113.7", routed: false, recorder: recorder).isReachable() == false)
        #expect(recorder.lookups.withLock { $0 } == ["203.0.113.7"])
        #expect(recorder.connects.withLock { $0 }.isEmpty)
    }

    @Test func aRoutedAddressIsConnectedTo() async {
        let accepted = Recorder()
        #expect(await probe(host: "[2001:db8::7]", routed: true, recorder: accepted).isReachable() == true)
        #expect(accepted.connects.withLock { $0 } == ["2001:db8::7"])
        let refused = Recorder()
        #expect(await probe(host: "203.0.113.7", routed: true, accepts: false, recorder: refused).isReachable() == false)
        #expect(refused.connects.withLock { $0 } == ["203.0.113.7"])
    }

    @Test func resolvedNamesWithoutARouteAreOfflineWithoutAConnect() async {
        let recorder = Recorder()
        #expect(await probe(host: "localhost", routed: false, recorder: recorder).isReachable() == false)
        #expect(recorder.lookups.withLock { $0 }.contains("127.0.0.1"))
        #expect(recorder.connects.withLock { $0 }.isEmpty)
    }

    /// Whether the kernel routing table has an IPv4 default route (Destination 00000000 in /proc/net/route).
    static let hasIPv4DefaultRoute: Bool = {
        guard let table = try? String(contentsOfFile: "/proc/net/route", encoding: .utf8) else { return true }
        return table.split(separator: "\n").dropFirst().contains { $0.split(separator: "\t").dropFirst().first == "00000000" }
    }()

    @Test(.disabled(if: hasIPv4DefaultRoute, "this machine has an IPv4 default route, so every unicast address is routable; the seam-based tests above cover the no-route case"))
    func theKernelsAnswerForAnUnroutableAddress() async {
        let recorder = Recorder()
        let real = TCPConnectProbe(host: "203.0.113.7", port: 9, connector: { address, _ in
            recorder.connects.withLock { $0.append(address.ipAddress ?? "?") }
            return true
        })
        #expect(await real.isReachable() == false)
        #expect(recorder.connects.withLock { $0 }.isEmpty)
    }
}
