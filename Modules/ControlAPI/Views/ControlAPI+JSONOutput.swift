public import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The bodies the daemon sends on every answer write themselves (see `JSONOutput`): the same
// bytes as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` gives (the daemon's
// `ControlServer.encoder`), which `ControlServerTests` checks.

extension AnswerReply: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.member("accepted", accepted)
            out.member("message", ifPresent: message)
            if let repeated { out.member("repeated", repeated) }
            out.key("session")
            session.write(to: &out)
        }
    }
}

extension SessionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.member("completedStages", completedStages)
            out.member("current", current)
            out.member("followUp", ifPresent: followUp)
            out.member("id", id)
            out.member("lang", lang)
            out.member("lastActivity", lastActivity)
            out.member("outcome", ifPresent: outcome)
            if let question {
                out.key("question")
                question.write(to: &out)
            }
            out.member("stage", stage)
            out.member("state", state)
            out.member("total", total)
        }
    }
}

extension QuestionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.member("accepts", accepts)
            out.member("name", name)
            out.key("options")
            out.array { out in
                for option in options { option.write(to: &out) }
            }
            out.member("required", required)
            out.member("text", text)
            out.member("type", type)
        }
    }
}

extension OptionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.member("isDefault", isDefault)
            out.member("label", label)
            out.member("position", position)
            out.member("value", value)
        }
    }
}
