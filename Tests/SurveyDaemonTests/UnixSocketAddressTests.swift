#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Foundation
import SurveyTesting
import Testing

/// Unix socket addresses: paths with their NUL, abstract names exactly, clear errors.
@Suite(.timeLimit(.minutes(5))) struct UnixSocketAddressTests {
    static let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2

    /// The family and the `sun_path` bytes the address passes.
    static func passed(_ address: UnixSocketAddress) -> (family: Int32, path: [UInt8]) {
        address.withSockAddr { pointer, length in
            pointer.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { sun in
                let bytes = withUnsafeBytes(of: sun.pointee.sun_path) { Array($0.prefix(Int(length) - pathOffset)) }
                return (Int32(sun.pointee.sun_family), bytes)
            }
        }
    }

    @Test func aPathIsFollowedByItsNul() throws {
        let address = try UnixSocketAddress(path: "/run/surveyd/d.sock")
        let (family, bytes) = Self.passed(address)
        #expect(family == AF_UNIX)
        #expect(bytes == Array("/run/surveyd/d.sock".utf8) + [0])
        #expect(address.name == .path("/run/surveyd/d.sock"))
        #expect(address.description == "/run/surveyd/d.sock")
    }

    @Test func anAbstractNameIsANulAndExactlyItsBytes() throws {
        let address = try UnixSocketAddress(abstract: "surveyd/notify")
        let (_, bytes) = Self.passed(address)
        #expect(bytes == [0] + Array("surveyd/notify".utf8))
        #expect(address.length == socklen_t(Self.pathOffset + 1 + 14))
        #expect(address.description == "@surveyd/notify")
    }

    @Test func systemdNamesArePathsOrAbstractNames() throws {
        #expect(try UnixSocketAddress(systemdName: "@notify").name == .abstract("notify"))
        #expect(try UnixSocketAddress(systemdName: "/run/systemd/notify").name == .path("/run/systemd/notify"))
    }

    @Test func theLongestPathThatFitsIsAccepted() throws {
        let path = "/" + String(repeating: "a", count: UnixSocketAddress.sunPathSize - 2)
        let (_, bytes) = Self.passed(try UnixSocketAddress(path: path))
        #expect(bytes.count == UnixSocketAddress.sunPathSize)
        #expect(bytes.last == 0)
    }

    @Test func aPathTooLongSaysHowLongAndWhatToDo() {
        let path = "/" + String(repeating: "a", count: UnixSocketAddress.sunPathSize - 1)
        #expect {
            try UnixSocketAddress(path: path)
        } throws: { error in
            guard let error = error as? UnixSocketAddressError else { return false }
            return error.code == "unix_socket_path_too_long"
                && error.message.contains("is \(UnixSocketAddress.sunPathSize) bytes")
                && error.message.contains("choose a shorter path")
        }
    }

    @Test func anAbstractNameTooLongOrEmptyIsRefused() {
        let long = String(repeating: "n", count: UnixSocketAddress.sunPathSize)
        #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(abstract: long) }
        #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(abstract: "") }
        #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(systemdName: "@") }
    }

    @Test func anEmptyPathOrOneWithANulIsRefused() {
        #expect {
            try UnixSocketAddress(path: "")
        } throws: { error in
            (error as? UnixSocketAddressError)?.message == "a Unix socket path is empty; give the socket file's path"
        }
        #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(path: "/tmp/a\u{0}b") }
    }

    /// A datagram sent to an abstract name arrives: the length carries no trailing NULs.
    @Test func aDatagramReachesAnAbstractName() async throws {
        let name = "surveyd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = try DatagramListener(abstract: name)
        defer { listener.stop() }
        let address = try UnixSocketAddress(abstract: name)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { _ = close(fd) }
        let payload = Array("PING=1".utf8)
        let sent = address.withSockAddr { address, length in
            payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
        #expect(sent == payload.count)
        #expect(await eventually { listener.messages == ["PING=1"] })
    }

    /// The path a socket is bound to reads back; an abstract name reads as no path.
    @Test func theBoundPathReadsBack() throws {
        let dir = try TemporaryDirectory(prefix: "ua")
        defer { dir.remove() }
        let path = dir.appending("b.sock").path
        let named = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { _ = close(named) }
        #expect(try UnixSocketAddress(path: path).withSockAddr { bind(named, $0, $1) } == 0)
        #expect(try UnixSocketAddress.boundPath(of: named) == path)

        let abstract = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { _ = close(abstract) }
        let name = "surveyd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(try UnixSocketAddress(abstract: name).withSockAddr { bind(abstract, $0, $1) } == 0)
        #expect(try UnixSocketAddress.boundPath(of: abstract) == "")

        #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress.boundPath(of: -1) }
    }
}
