// What a process's threads did, read from /proc: its voluntary context switches (each one a
// thread going to sleep, so a wake-up before it: the count powertop and the kernel's
// schedstat speak of), the CPU time its threads ran, and how many threads it has.
import Foundation

struct ProcessActivity {
    /// Per thread id: voluntary context switches and nanoseconds on a CPU.
    var threads: [String: (switches: Int, cpu: Int)]

    /// Reads every thread of `pid` (`/proc/PID/task/*/status` and `schedstat`); a thread that
    /// ends while it is read is left out.
    static func read(pid: Int32) -> ProcessActivity {
        let base = "/proc/\(pid)/task"
        var threads: [String: (switches: Int, cpu: Int)] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(base)/\(task)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                  let switches = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                  let schedstat = try? String(contentsOfFile: "\(base)/\(task)/schedstat", encoding: .utf8),
                  let cpu = Int(schedstat.split(separator: " ").first ?? "")
            else { continue }
            threads[task] = (switches, cpu)
        }
        return ProcessActivity(threads: threads)
    }

    /// What happened from `before` to this reading: the threads alive now, counted from zero
    /// when they were born since (a thread that ended meanwhile is not counted).
    func since(_ before: ProcessActivity) -> (switches: Int, cpuNanoseconds: Int) {
        var switches = 0
        var cpu = 0
        for (task, now) in threads {
            let then = before.threads[task] ?? (0, 0)
            switches += now.switches - then.switches
            cpu += now.cpu - then.cpu
        }
        return (switches, cpu)
    }

    /// Voluntary switches per thread from `before`, largest first: where the wake-ups are.
    func perThread(since before: ProcessActivity, pid: Int32) -> [(name: String, switches: Int)] {
        threads.map { task, now in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? task
            return ("\(name) (\(task))", now.switches - (before.threads[task]?.switches ?? 0))
        }.sorted { $0.switches > $1.switches }
    }
}
