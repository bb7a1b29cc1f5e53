import Foundation
import SightlineFrames
import SightlineMedia

/// One self-overwriting status line on standard error while a long run goes on: frames, time,
/// speed, what is left. Drawn only when standard error is a terminal, a few times a second.
public final class ProgressLine: FrameSink {
    private let enabled: Bool
    private let totalFrames: Int?
    private let started = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drewSomething = false
    private var frames = 0
    private var dropped = 0
    /// More for the line, given the frame just handed out and the frames dropped so far (a
    /// camera's latency, for instance); only evaluated when the line is drawn.
    public var note: (FrameRecord, _ dropped: Int) -> String = { _, _ in "" }

    public init(quiet: Bool, totalFrames: Int?) {
        enabled = !quiet && isatty(STDERR_FILENO) != 0
        self.totalFrames = totalFrames
    }

    /// Frames a run over a file should see, for the line: the container's count, less what
    /// `start` skips and `duration` leaves out.
    public static func expectedFrames(_ info: VideoStreamInfo, start: Double?, duration: Double?) -> Int? {
        let fps = info.frameRate.den > 0 ? Double(info.frameRate.num) / Double(info.frameRate.den) : 0
        var frames = info.frameCountHint
        if let start, let total = frames { frames = max(0, total - Int(start * fps)) }
        if let duration, fps > 0 { frames = min(frames ?? Int.max, Int((duration * fps).rounded(.up))) }
        return frames
    }

    public var isOutput: Bool { false }

    public func frame(_ record: FrameRecord, picture: VideoFrame?) throws {
        frames += 1
        if record.faceStatus == .dropped || record.codeStatus == .dropped { dropped += 1 }
        update(frames: frames, seconds: record.t, note: note(record, dropped))
    }

    /// Draws the line for `frames` handed out, the last at `seconds` (at most a few times a
    /// second; `note` is only evaluated then).
    public func update(frames: Int, seconds: Double, note: @autoclosure () -> String = "") {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(250) else { return }
        lastDraw = now
        let elapsed = now - started
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let fps = wall > 0 ? Double(frames) / wall : 0
        var line = String(format: "frames %d", frames)
        if let totalFrames, totalFrames > 0 {
            line += String(format: "/%d (%.0f%%)", totalFrames, min(100, 100 * Double(frames) / Double(totalFrames)))
        }
        line += String(format: "  t=%.1fs  %.1f fps", seconds, fps)
        if let totalFrames, fps > 0, totalFrames > frames {
            line += String(format: "  %.0fs left", Double(totalFrames - frames) / fps)
        }
        let note = note()
        if !note.isEmpty { line += "  " + note }
        show(line)
    }

    /// Draws `text` as the line (a command whose progress is not frames: `scan`'s files).
    public func show(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r" + text + "   ").utf8))
        drewSomething = true
    }

    public func finish(_ summary: SummaryRecord) throws { finish() }
    public func abandon() { finish() }

    /// Ends the line (a run that stops on an error leaves the terminal tidy).
    public func finish() {
        guard drewSomething else { return }
        drewSomething = false
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
