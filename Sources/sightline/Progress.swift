import Foundation
import Sightline

/// One self-overwriting status line on standard error while a long run goes on.
final class Progress {
    private let enabled: Bool
    private let totalFrames: Int?
    private let started = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drewSomething = false

    /// Drawn only when standard error is a terminal and the run is not `quiet`.
    init(quiet: Bool, totalFrames: Int?) {
        enabled = !quiet && isatty(STDERR_FILENO) != 0
        self.totalFrames = totalFrames
    }

    /// `note`: more counts for the line (a live run's dropped frames, for instance); only
    /// evaluated when the line is drawn, a few times a second.
    func update(frames: Int, seconds: Double, note: @autoclosure () -> String = "") {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(250) else { return }
        lastDraw = now
        let elapsed = (now - started).seconds
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        var line = String(format: "\rframes %d", frames)
        if let totalFrames, totalFrames > 0 {
            line += String(format: "/%d (%.0f%%)", totalFrames, min(100, 100 * Double(frames) / Double(totalFrames)))
        }
        line += String(format: "  t=%.1fs  %.1f fps", seconds, fps)
        if let totalFrames, fps > 0, totalFrames > frames {
            line += String(format: "  %.0fs left", Double(totalFrames - frames) / fps)
        }
        let note = note()
        if !note.isEmpty { line += "  " + note }
        FileHandle.standardError.write(Data((line + "   ").utf8))
        drewSomething = true
    }

    /// Frames a run should see, for the progress line: the container's count, less what
    /// --start skips and --duration leaves out.
    static func expectedFrames(_ info: VideoStreamInfo, start: Double?, duration: Double?) -> Int? {
        let fps = info.frameRate.den > 0 ? Double(info.frameRate.num) / Double(info.frameRate.den) : 0
        var frames = info.frameCountHint
        if let start, let total = frames { frames = max(0, total - Int(start * fps)) }
        if let duration, fps > 0 { frames = min(frames ?? Int.max, Int((duration * fps).rounded(.up))) }
        return frames
    }

    func finish() {
        guard enabled, drewSomething else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
