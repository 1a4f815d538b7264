// The staff PIN's hash, as `surveyctl staff-pin set` writes it and the daemon reads it
// (doc/security.md): PBKDF2-HMAC-SHA256 from swift-crypto's `_CryptoExtras`, a random 16-byte
// salt, 600 000 iterations (OWASP's Password Storage Cheat Sheet), a 32-byte hash. The file
// holds one line: `surveyd-staff-pin 1 pbkdf2-sha256 ITERATIONS SALT HASH` (base64).

import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A salted slow hash of the staff PIN; the PIN itself is never stored.
public struct StaffPinHash: Sendable, Hashable {
    /// The iterations a new hash gets: OWASP's figure for PBKDF2-HMAC-SHA256.
    public static let defaultIterations = 600_000
    /// The fewest and most iterations a file may name: swift-crypto's PBKDF2 refuses fewer than 210 000.
    public static let iterationRange = 210_000...10_000_000
    /// The fewest and most digits a PIN has.
    public static let digitRange = 4...12
    static let magic = "surveyd-staff-pin"
    static let version = "1"
    static let algorithm = "pbkdf2-sha256"
    static let saltBytes = 16
    static let hashBytes = 32

    public let iterations: Int
    let salt: [UInt8]
    let hash: [UInt8]

    /// Hashes `pin` with a new random salt. The PIN must pass ``check(_:)``.
    public init(pin: String, iterations: Int = StaffPinHash.defaultIterations) throws(StaffPinError) {
        try Self.check(pin)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.iterations = iterations
        self.salt = salt
        hash = try Self.derive(pin, salt: salt, iterations: iterations)
    }

    /// Whether `pin` is the PIN hashed, compared in constant time (`SymmetricKey`'s `==`). Slow
    /// on purpose (a fraction of a second to a second): call it off any event loop.
    public func matches(_ pin: String) -> Bool {
        guard Self.digitRange.contains(pin.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let derived = try? Self.derive(pin, salt: salt, iterations: iterations) else {
            return false
        }
        return SymmetricKey(data: derived) == SymmetricKey(data: hash)
    }

    /// Refuses anything but 4 to 12 ASCII digits, saying what was wrong (never the PIN itself).
    public static func check(_ pin: String) throws(StaffPinError) {
        guard pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw StaffPinError("the PIN may hold digits only (0-9); type 4 to 12 digits")
        }
        guard digitRange.contains(pin.utf8.count) else {
            throw StaffPinError("the PIN has \(pin.utf8.count) digits; give 4 to 12")
        }
    }

    static func derive(_ pin: String, salt: [UInt8], iterations: Int) throws(StaffPinError) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(pin.utf8), salt: salt, using: .sha256, outputByteCount: hashBytes, rounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw StaffPinError("the PIN cannot be hashed: \(error)")
        }
    }

    /// The file's line, with its newline.
    public var line: String {
        [Self.magic, Self.version, Self.algorithm, String(iterations), Data(salt).base64EncodedString(), Data(hash).base64EncodedString()]
            .joined(separator: " ") + "\n"
    }

    /// Reads the file's line; the error says what is wrong with it (not where: the caller names the file).
    public init(line text: String) throws(StaffPinError) {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 6, fields[0] == Self.magic else {
            throw StaffPinError("it is not a staff PIN file (expected one line `\(Self.magic) 1 \(Self.algorithm) …`); write it with `surveyctl staff-pin set`")
        }
        guard fields[1] == Self.version, fields[2] == Self.algorithm else {
            throw StaffPinError("it uses format \(fields[1]) \(fields[2].prefix(40)), this surveyd reads only 1 \(Self.algorithm); write it again with `surveyctl staff-pin set`")
        }
        guard let iterations = Int(fields[3]), Self.iterationRange.contains(iterations) else {
            throw StaffPinError("its iteration count \(fields[3].prefix(20)) is not from \(Self.iterationRange.lowerBound) to \(Self.iterationRange.upperBound); write it again with `surveyctl staff-pin set`")
        }
        guard let salt = Data(base64Encoded: fields[4]), salt.count == Self.saltBytes,
              let hash = Data(base64Encoded: fields[5]), hash.count == Self.hashBytes else {
            throw StaffPinError("its salt or hash is not base64 of \(Self.saltBytes) and \(Self.hashBytes) bytes; write it again with `surveyctl staff-pin set`")
        }
        self.iterations = iterations
        self.salt = Array(salt)
        self.hash = Array(hash)
    }
}

/// A PIN or a PIN file that cannot be used, with what to do.
public struct StaffPinError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
