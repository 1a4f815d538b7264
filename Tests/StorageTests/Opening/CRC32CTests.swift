import Foundation
import Testing

@testable import Storage

@Suite(.timeLimit(.minutes(5))) struct CRC32CTests {
    /// The published check value of CRC32C, and the empty input.
    @Test func knownAnswer() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        Array("123456789".utf8).withUnsafeBytes { raw in
            #expect(CRC32C.softwareUpdate(0, raw) == 0xE306_9283)
            #expect(CRC32C.bytewiseUpdate(0, raw) == 0xE306_9283)
        }
    }

    @Test func slicingMatchesTheBytewiseFormAtEveryLengthAndAlignment() {
        Self.expectMatchesBytewise(CRC32C.softwareUpdate)
    }

    @Test(.enabled(if: CRC32C.usesInstruction, "this processor has no CRC32C instruction (SSE 4.2, ARMv8 CRC), so the journal uses slicing-by-8"))
    func theInstructionMatchesTheBytewiseFormAtEveryLengthAndAlignment() {
        Self.expectMatchesBytewise(CRC32C.update)
        Array("123456789".utf8).withUnsafeBytes { raw in
            #expect(CRC32C.update(0, raw) == 0xE306_9283)
        }
    }

    /// `update` gives what the one-table form gives for every slice of random bytes (lengths 0 to
    /// 300 from nine alignments), and continuing a CRC across a split gives the CRC of the whole.
    static func expectMatchesBytewise(_ update: (UInt32, UnsafeRawBufferPointer) -> UInt32) {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { raw in
            for start in 0..<9 {
                for end in start...raw.count {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                    #expect(update(0, slice) == CRC32C.bytewiseUpdate(0, slice), "bytes \(start)..<\(end)")
                }
            }
            let whole = update(0, raw)
            let split = update(update(0, UnsafeRawBufferPointer(rebasing: raw[..<123])), UnsafeRawBufferPointer(rebasing: raw[123...]))
            #expect(split == whole)
            #expect(update(0x1234_5678, raw) == CRC32C.bytewiseUpdate(0x1234_5678, raw))
        }
    }
}
