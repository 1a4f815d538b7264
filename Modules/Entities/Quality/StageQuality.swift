/// A completed stage's paradata and the flags judged from it when the stage closed: journaled
/// with the stage's completion (so encrypted at rest and erased with the answers), sent beside
/// the upload as headers (`StageQuality+Headers.swift`).
public struct StageQuality: Sendable, Hashable {
    public var paradata: StageParadata
    public var flags: [QualityFlag]

    public init(paradata: StageParadata, flags: [QualityFlag] = []) {
        self.paradata = paradata
        self.flags = flags
    }

    public var flagNames: [String] { flags.map(\.kind.rawValue) }
}

// The journal's form is compact, for it is written once per completed stage beside answers a few
// times its size: `{"q":[[position,ms],[position,ms,taps,keys,span,stillThere],…],"k":[index of a
// skip in q,…],"b":backs,"c":changed,"r":true,"f":[["speeding",7,10,412],…]}`; ms is -1 when not
// timed; "k", "b", "c", "r" and "f" are left out when empty, zero or false.
extension StageQuality: Codable, JSONOutputWritable {
    private enum Key: String, CodingKey { case q, k, b, c, r, f }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let rows = try container.decode([[Int]].self, forKey: .q)
        let skips = Set(try container.decodeIfPresent([Int].self, forKey: .k) ?? [])
        var questions: [QuestionTiming] = []
        for (index, row) in rows.enumerated() {
            guard row.count == 2 || row.count == 6, row[0] >= 0, row[1] >= -1 else {
                throw DecodingError.dataCorruptedError(forKey: .q, in: container, debugDescription: "a timed question is [position, ms] or [position, ms, taps, keys, span, stillThere]")
            }
            let input = row.count == 6 ? PageInput(taps: row[2], keys: row[3], spanMilliseconds: row[4], stillThereShown: row[5]) : nil
            questions.append(QuestionTiming(position: row[0], milliseconds: row[1] < 0 ? nil : row[1], skipped: skips.contains(index), input: input))
        }
        let paradata = StageParadata(
            questions: questions, backs: try container.decodeIfPresent(Int.self, forKey: .b) ?? 0,
            changed: try container.decodeIfPresent(Int.self, forKey: .c) ?? 0, restarted: try container.decodeIfPresent(Bool.self, forKey: .r) ?? false)
        var flags: [QualityFlag] = []
        if var list = try? container.nestedUnkeyedContainer(forKey: .f) {
            while !list.isAtEnd {
                var row = try list.nestedUnkeyedContainer()
                let name = try row.decode(String.self)
                var numbers: [Int] = []
                while !row.isAtEnd { numbers.append(try row.decode(Int.self)) }
                // A flag this version does not know (or with other numbers) is left out, not an error.
                guard let kind = QualityFlag.Kind(rawValue: name), numbers.count == kind.evidenceNames.count else { continue }
                flags.append(QualityFlag(kind, numbers))
            }
        }
        self.init(paradata: paradata, flags: flags)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(paradata.questions.map(Self.row), forKey: .q)
        let skips = paradata.questions.indices.filter { paradata.questions[$0].skipped }
        if !skips.isEmpty { try container.encode(skips, forKey: .k) }
        if paradata.backs != 0 { try container.encode(paradata.backs, forKey: .b) }
        if paradata.changed != 0 { try container.encode(paradata.changed, forKey: .c) }
        if paradata.restarted { try container.encode(true, forKey: .r) }
        if !flags.isEmpty {
            var list = container.nestedUnkeyedContainer(forKey: .f)
            for flag in flags {
                var row = list.nestedUnkeyedContainer()
                try row.encode(flag.kind.rawValue)
                for number in flag.evidence { try row.encode(number) }
            }
        }
    }

    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("q")
            out.array { out in
                for question in paradata.questions {
                    out.array { out in for number in Self.row(question) { out.integer(number) } }
                }
            }
            let skips = paradata.questions.indices.filter { paradata.questions[$0].skipped }
            if !skips.isEmpty {
                out.key("k")
                out.array { out in for index in skips { out.integer(index) } }
            }
            if paradata.backs != 0 { out.member("b", paradata.backs) }
            if paradata.changed != 0 { out.member("c", paradata.changed) }
            if paradata.restarted { out.member("r", true) }
            if !flags.isEmpty {
                out.key("f")
                out.array { out in
                    for flag in flags {
                        out.array { out in
                            out.string(flag.kind.rawValue)
                            for number in flag.evidence { out.integer(number) }
                        }
                    }
                }
            }
        }
    }

    private static func row(_ question: QuestionTiming) -> [Int] {
        var row = [question.position, question.milliseconds ?? -1]
        if let input = question.input { row += [input.taps, input.keys, input.spanMilliseconds, input.stillThereShown] }
        return row
    }
}
