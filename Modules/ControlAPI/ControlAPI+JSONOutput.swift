import Entities
import Foundation

// The bodies the daemon sends on every answer write themselves (see `JSONOutput`): the same
// bytes as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` gives (the daemon's
// `ControlServer.encoder`), which `ControlServerTests` checks.

extension AnswerReply: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("accepted")
            out.bool(accepted)
            out.member("message", ifPresent: message)
            out.key("session")
            session.write(to: &out)
        }
    }
}

extension SessionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("completedStages")
            out.strings(completedStages)
            out.key("current")
            out.integer(current)
            out.member("followUp", ifPresent: followUp)
            out.key("id")
            out.string(id)
            out.key("lang")
            out.string(lang)
            out.key("lastActivity")
            out.string(lastActivity)
            out.member("outcome", ifPresent: outcome)
            if let question {
                out.key("question")
                question.write(to: &out)
            }
            out.key("stage")
            out.string(stage)
            out.key("state")
            out.string(state)
            out.key("total")
            out.integer(total)
        }
    }
}

extension QuestionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("accepts")
            out.strings(accepts)
            out.key("name")
            out.string(name)
            out.key("options")
            out.array { out in
                for option in options { option.write(to: &out) }
            }
            out.key("required")
            out.bool(required)
            out.key("text")
            out.string(text)
            out.key("type")
            out.string(type)
        }
    }
}

extension OptionView: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        out.object { out in
            out.key("isDefault")
            out.bool(isDefault)
            out.key("label")
            out.string(label)
            out.key("position")
            out.integer(position)
            out.key("value")
            out.string(value)
        }
    }
}
