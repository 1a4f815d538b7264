#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOPosix

/// The process at the other end of a Unix socket connection (`SO_PEERCRED`).
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Reads the credentials of a connected Unix socket channel.
    static func of(_ channel: any Channel) async throws -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider else {
            throw ControlError(status: 403, code: "peer_unknown", "the connection's peer credentials cannot be read; connect over the Unix socket")
        }
        let cred: UCred = try await provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get()
        return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid)
    }

    /// The supplementary groups of the peer process, from `/proc/<pid>/status`: a blocking read,
    /// never made on an event loop (checked in debug builds).
    func supplementaryGroups() -> Set<UInt32> {
        BlockingCallCheck.assertMayBlock("reading the peer's groups from /proc")
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [] }
        return Self.groups(fromStatus: status)
    }

    /// The `Groups:` line of a `/proc/<pid>/status` text: numbers after a tab, separated by spaces.
    public static func groups(fromStatus status: String) -> Set<UInt32> {
        for line in status.split(separator: "\n") where line.hasPrefix("Groups:") {
            return Set(line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { UInt32($0) })
        }
        return []
    }
}

/// The layout of Linux's `struct ucred` (pid_t, uid_t, gid_t), which Glibc's module map hides
/// behind `_GNU_SOURCE`.
struct UCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Who may use the control socket: the daemon's own user, root, and members of the
/// configured group.
public struct PeerPolicy: Sendable, Hashable {
    public var ownerUID: UInt32
    public var groupID: UInt32?

    public init(ownerUID: UInt32, groupID: UInt32?) {
        self.ownerUID = ownerUID
        self.groupID = groupID
    }

    /// Whether only the peer's supplementary groups can decide: it is neither the owner nor
    /// root, and a group is allowed that is not its primary one.
    public func needsGroups(of peer: PeerCredentials) -> Bool {
        guard let groupID, peer.uid != ownerUID, peer.uid != 0 else { return false }
        return peer.gid != groupID
    }

    /// True when `peer` may use the API. `groups` gives the peer's supplementary groups.
    public func allows(_ peer: PeerCredentials, groups: @autoclosure () -> Set<UInt32>) -> Bool {
        if peer.uid == ownerUID || peer.uid == 0 { return true }
        guard let groupID else { return false }
        return peer.gid == groupID || groups().contains(groupID)
    }
}
