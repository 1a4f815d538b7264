import Kiosk
import NIOCore
import Testing

/// Which clients the staff screen admits: with the pages served to other machines over plain
/// HTTP, only a browser on the kiosk itself (a loopback client), unless the operator allowed any.
@Suite(.timeLimit(.minutes(5))) struct KioskStaffAccessTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("192.0.2.7", false), ("10.0.0.1", false), ("0.0.0.0", false), ("128.0.0.1", false), ("126.255.255.255", false),
        ("fd00::2", false), ("::", false), ("::2", false), ("::ffff:192.0.2.7", false), ("fe80::1", false), ("::127.0.0.1", false),
    ])
    func onlyALoopbackClientIsOnThisMachine(address: String, loopback: Bool) throws {
        let peer = try SocketAddress(ipAddress: address, port: 40_000)
        #expect(KioskStaffAccess.isLoopback(peer) == loopback, "\(address)")
        #expect(KioskStaffAccess.loopbackOnly.admits(peer) == loopback, "\(address)")
        #expect(KioskStaffAccess.anyClient.admits(peer))
    }

    @Test func aClientWhoseAddressIsUnknownIsRefusedUnlessAnyIsAllowed() {
        #expect(!KioskStaffAccess.loopbackOnly.admits(nil))
        #expect(KioskStaffAccess.anyClient.admits(nil))
    }

    @Test func thePagesAdmitOnlyThisMachineUnlessTold() {
        #expect(KioskSettings().staffAccess == .loopbackOnly)
    }
}
