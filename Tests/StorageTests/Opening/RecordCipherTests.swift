import Crypto
import Foundation
@testable import Storage
import Testing

/// The record cipher seals and opens on the journal's buffers; swift-crypto's `ChaChaPoly` is the
/// reference it must agree with byte for byte (doc/journal-format.md, "Encryption").
@Suite(.timeLimit(.minutes(5))) struct RecordCipherTests {
    private static let key = SymmetricKey(data: (0..<32).map { UInt8($0 * 5 + 1) })

    /// The reference: `ChaChaPoly` with the nonce and associated data the format prescribes.
    private static func reference(_ payload: [UInt8], type: UInt8, sequence: UInt64, offset: Int) throws -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        withUnsafeBytes(of: UInt64(offset).littleEndian) { nonce.replaceSubrange(0..<8, with: $0) }
        var aad: [UInt8] = [0x53, 0x56, 0x53, 0x31]
        withUnsafeBytes(of: UInt32(payload.count + 16).littleEndian) { aad += $0 }
        aad.append(type)
        withUnsafeBytes(of: sequence.littleEndian) { aad += $0 }
        let box = try ChaChaPoly.seal(payload, using: key, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: aad)
        return Array(box.ciphertext) + Array(box.tag)
    }

    @Test(arguments: [0, 1, 15, 16, 17, 63, 64, 65, 255, 1000, 4075])
    func sealsAsChaChaPolyDoesAndOpensWhatItSealed(size: Int) throws {
        let cipher = RecordCipher(key: Self.key, protection: .currentKey)
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
        let offset = 48 + size * 3
        let sequence = UInt64(1000 + size)
        var frame: [UInt8] = [0xEE]  // something before the frame, as in a batch
        try cipher.encode(type: 5, sequence: sequence, payload: payload, offset: offset, into: &frame)
        let sealed = Array(frame[(1 + 21)...])
        #expect(sealed == (try Self.reference(payload, type: 5, sequence: sequence, offset: offset)))
        #expect(frame.count == 1 + 21 + size + 16)
        // The frame checks as a whole: its CRC, and its payload opens at its offset.
        let decoded = frame.withUnsafeBytes { Frame.decode(UnsafeRawBufferPointer(rebasing: $0[1...]), at: 0, maxPayload: 1 << 20, cipher: cipher, position: offset) }
        #expect(decoded?.0 == JournalRecord(sequence: sequence, type: 5, payload: payload))
        // Another offset, type or sequence number, or a flipped bit, does not open.
        sealed.withUnsafeBytes { raw in
            #expect(cipher.open(type: 5, sequence: sequence, sealed: raw, offset: offset) == payload)
            #expect(cipher.open(type: 5, sequence: sequence, sealed: raw, offset: offset + 1) == nil)
            #expect(cipher.open(type: 4, sequence: sequence, sealed: raw, offset: offset) == nil)
            #expect(cipher.open(type: 5, sequence: sequence + 1, sealed: raw, offset: offset) == nil)
        }
        for at in [0, sealed.count / 2, sealed.count - 1] {
            var flipped = sealed
            flipped[at] ^= 0x80
            flipped.withUnsafeBytes { #expect(cipher.open(type: 5, sequence: sequence, sealed: $0, offset: offset) == nil) }
        }
        let other = RecordCipher(key: SymmetricKey(data: [UInt8](repeating: 7, count: 32)), protection: .currentKey)
        sealed.withUnsafeBytes { #expect(other.open(type: 5, sequence: sequence, sealed: $0, offset: offset) == nil) }
    }

    /// One cipher opens records on several threads at once (an opening shares it with its helpers).
    @Test func oneCipherOpensOnSeveralThreadsAtOnce() async throws {
        let cipher = RecordCipher(key: Self.key, protection: .currentKey)
        let records = try (0..<64).map { i in (i, try Self.reference(Array("record \(i)".utf8), type: 1, sequence: UInt64(i), offset: i * 100)) }
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    records.allSatisfy { i, sealed in
                        sealed.withUnsafeBytes { cipher.open(type: 1, sequence: UInt64(i), sealed: $0, offset: i * 100) } == Array("record \(i)".utf8)
                    }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(opened)
    }
}
