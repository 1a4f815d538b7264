import Foundation

/// This executable, to run it again as a child (`StorageBenchmark open DIR` measures an opening
/// in a process of its own); the child runs through ProcessTesting's `runProcess`, with a deadline.
let ownExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
