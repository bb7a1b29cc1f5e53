import CFFmpeg
import Foundation
import SightlineFrames
import Synchronization

/// What to capture from a network camera or stream.
public struct NetworkOptions: Sendable {
    /// An rtsp://, rtsps://, srt:// or udp:// URL.
    public var url: String
    /// Stop after this many frames, or seconds of the stream's timeline.
    public var maxFrames: Int?
    public var maxSeconds: Double?
    /// A read or open that gets no data for this long means the stream dropped.
    public var timeout = 2.0
    /// Waits between attempts to open the stream again: doubling from the first to the last.
    public var firstRetry = 0.25
    public var lastRetry = 4.0
    /// Give up (the run ends as damaged input, with complete output) after this long without frames.
    public var giveUpAfter = 60.0

    /// The URL schemes `capture` opens, and the protocols FFmpeg may use for them.
    public static let schemes: Set<String> = ["rtsp", "rtsps", "srt", "udp"]
    package static let protocols = "rtsp,rtsps,rtp,srtp,udp,tcp,tls,srt"

    public init(url: String, maxFrames: Int? = nil, maxSeconds: Double? = nil) {
        self.url = url
        self.maxFrames = maxFrames
        self.maxSeconds = maxSeconds
    }

    /// Whether `text` is a URL `capture` opens as a network stream.
    public static func isNetworkURL(_ text: String) -> Bool {
        VideoFileSource.urlScheme(of: text).map { schemes.contains($0.lowercased()) } ?? false
    }
}

/// Frames of a network stream (an IP camera over RTSP or SRT, MPEG-TS over UDP) through
/// libavformat, read as a live source: the run never waits for analysis (late frames are
/// dropped from analysis as with a V4L2 camera). Until the run asks for its first frame (the
/// networks are being made ready, other cameras opened), the stream is read and decoded on a
/// thread of its own and only its newest frame kept: the frames before are counted in
/// `framesBeforeStart`, not handed to analysis as a burst already late. When the stream drops
/// (no data for `timeout` seconds, an error, its end), it is opened again with back-off; the
/// frames of the new connection go on on the same timeline after the wall-clock time without
/// frames, a discontinuity record (`reconnect`) marks the place, and the frames the stream's
/// rate would have given in between are counted as lost. A sender that restarts without the
/// connection dropping (UDP) shows as a clock jump, and the time lost is counted the same way.
// @unchecked Sendable: its reading state is used by one thread at a time, the read-ahead thread
// until the first `nextFrame` (which waits for it to stop), then the run's reading thread.
public final class NetworkSource: FrameSource, @unchecked Sendable {
    public let info: VideoStreamInfo
    /// What every connection met; a connection's own end (the stream dropped, or a stop) is not
    /// a read error: only giving up is.
    public var damage: DecodeDamage {
        var sum = earlier
        if let input { sum.addCounts(of: input.damage) }
        return sum
    }
    public var isLive: Bool { true }
    public var lostFrames: Int { lost.load(ordering: .relaxed) }
    public var framesBeforeStart: Int { beforeStart.withLock { $0.skipped } }
    /// Times the stream was opened again.
    public var reconnections: Int { reconnected.load(ordering: .relaxed) }
    /// Called (on the reading thread) when the stream drops and when it is back.
    public var log: (@Sendable (String) -> Void)?

    private let options: NetworkOptions
    private let interrupt: IOInterrupt
    private var input: VideoFileSource?
    private var earlier = DecodeDamage()
    private let lost = Atomic(0)
    private let reconnected = Atomic(0)
    private let timeBase: AVRational
    /// Ticks of the time base per frame at the stream's rate.
    private let frameTicks: Int64
    /// Added to the current connection's pts (rescaled to the first connection's time base).
    private var offset: Int64 = 0
    private var lastPTS: Int64?
    private var lastFrameTime: Double?
    private var delivered = 0
    /// Set when the stream dropped: the next frame carries the reconnection.
    private var droppedAt: Double?
    /// What the reading before the start left: its newest frame, how many frames it passed
    /// over, and how it ended (the stream's end, an error). Read once the thread has stopped.
    private struct BeforeStart {
        var newest: VideoFrame?
        var skipped = 0
        var ended = false
        var error: Error?
    }
    private let beforeStart = Mutex(BeforeStart())
    private let starting = Atomic(false)
    private let readingBeforeStart = DispatchGroup()

    /// No stream to read at the start fails as a missing input (`inputUnreadable`), whatever
    /// FFmpeg made of the little it got.
    public init(options: NetworkOptions) throws {
        self.options = options
        interrupt = IOInterrupt(timeout: max(options.timeout, 5))
        let first: VideoFileSource
        do {
            first = try Self.open(options.url, interrupt: interrupt)
        } catch SightlineError.notMedia(_, let reason) {
            throw SightlineError.inputUnreadable(path: options.url, reason: reason)
        }
        input = first
        interrupt.rearm(timeout: options.timeout)
        info = first.info
        timeBase = AVRational(num: Int32(info.timeBase.num), den: Int32(info.timeBase.den))
        let rate = info.frameRate
        frameTicks = rate.num > 0 && rate.den > 0 ? max(1, av_rescale_q(1, AVRational(num: Int32(rate.den), den: Int32(rate.num)), timeBase)) : 1
        readBeforeStart()
    }

    /// Reads the stream until the first `nextFrame`, keeping only the newest frame. Stops on its
    /// own when the stream drops: the first `nextFrame` opens it again, as later on.
    private func readBeforeStart() {
        readingBeforeStart.enter()
        let thread = Thread { [weak self] in
            defer { self?.readingBeforeStart.leave() }
            while let self, !self.starting.load(ordering: .acquiring) {
                do {
                    guard let frame = try self.readFrame(reconnecting: false) else {
                        // Dropped (no input left) or ended: the first `nextFrame` sees which.
                        let ended = self.input != nil
                        self.beforeStart.withLock { $0.ended = ended }
                        return
                    }
                    self.beforeStart.withLock { early in
                        if early.newest != nil { early.skipped += 1 }
                        early.newest = frame
                    }
                } catch {
                    self.beforeStart.withLock { $0.error = error }
                    return
                }
            }
        }
        thread.name = "sightline.read-ahead"
        thread.start()
    }

    private static func open(_ url: String, interrupt: IOInterrupt) throws -> VideoFileSource {
        var options = SourceOptions()
        options.protocols = NetworkOptions.protocols
        options.interrupt = interrupt
        options.discardsProbedPackets = true
        return try VideoFileSource(path: url, options: options)
    }

    /// Stops reading at once (a blocking read or a wait to reconnect returns). Safe from any thread.
    public func interruptReading() { interrupt.stop() }

    public func nextFrame() throws -> VideoFrame? {
        // Only this thread sets `starting`: the first call stops the read-ahead and takes its frame.
        if !starting.load(ordering: .relaxed) {
            starting.store(true, ordering: .releasing)
            readingBeforeStart.wait()
            let early = beforeStart.withLock { state in
                defer { state.newest = nil }
                return state
            }
            if let error = early.error { throw error }
            if early.ended { return nil }
            if let first = early.newest {
                delivered += 1
                return first
            }
        }
        let frame = try readFrame(reconnecting: true)
        if frame != nil { delivered += 1 }
        return frame
    }

    /// The next frame on the run's timeline (index: the frames delivered so far); nil at the
    /// end, or when the stream dropped and `reconnecting` is false.
    private func readFrame(reconnecting: Bool) throws -> VideoFrame? {
        while !interrupt.isStopped {
            if let limit = options.maxFrames, delivered >= limit { return nil }
            guard let input else {
                guard reconnecting, try reconnect() else { return nil }
                continue
            }
            guard let frame = try input.nextFrame() else {
                // The stream dropped (no data in time, an error, or its end): open it again.
                earlier.addCounts(of: input.damage)
                self.input = nil
                // The last data that came, not the last frame decoded: the demuxer and decoder
                // hold the last frames until more data comes.
                droppedAt = input.latestArrival ?? lastFrameTime ?? IOInterrupt.now()
                log?("the stream dropped; opening it again")
                continue
            }
            let now = IOInterrupt.now()
            let tb = AVRational(num: Int32(input.info.timeBase.num), den: Int32(input.info.timeBase.den))
            var pts = av_rescale_q(frame.pts, tb, timeBase) + offset
            var discontinuity = frame.discontinuity
            if let lastPTS {
                // After a reconnection or a clock jump the stream's own time says nothing about
                // the time without frames: the wall clock does.
                if droppedAt != nil || frame.discontinuity?.clock != nil {
                    // From the last packet before to the first after (the first packet of a
                    // new connection, or the one whose clock jumped).
                    let gap = droppedAt.map { (input.firstArrival ?? now) - $0 } ?? frame.arrivalGap ?? (now - (lastFrameTime ?? now))
                    let gapTicks = max(frameTicks, Int64((gap / av_q2d(timeBase)).rounded()))
                    offset += lastPTS + gapTicks - pts
                    pts = lastPTS + gapTicks
                    let missed = max(0, Int((Double(gapTicks) / Double(frameTicks)).rounded()) - 1)
                    lost.add(missed, ordering: .relaxed)
                    if droppedAt != nil {
                        var d = discontinuity ?? DiscontinuityRecord()
                        d.reconnect = DiscontinuityRecord.Reconnect(seconds: gap, lostFrames: missed)
                        discontinuity = d
                    }
                } else if pts <= lastPTS {
                    continue   // out of order: the source already counts these
                } else if pts - lastPTS > frameTicks * 3 / 2 {
                    // Frames the network lost within a connection.
                    lost.add(Int((Double(pts - lastPTS) / Double(frameTicks)).rounded()) - 1, ordering: .relaxed)
                }
            }
            droppedAt = nil
            lastPTS = pts
            lastFrameTime = now
            let seconds = Double(pts) * av_q2d(timeBase) - info.timelineOrigin
            if let limit = options.maxSeconds, seconds >= limit { return nil }
            let out = try frame.retimed(index: delivered, pts: pts, seconds: seconds)
            out.discontinuity = discontinuity
            return out
        }
        return nil
    }

    /// Opens the stream again, waiting longer between attempts; false when stopped or given up
    /// (then the damage says why).
    private func reconnect() throws -> Bool {
        var wait = options.firstRetry
        let started = droppedAt ?? IOInterrupt.now()
        while !interrupt.isStopped {
            interrupt.rearm(timeout: max(options.timeout, 5))
            if let source = try? Self.open(options.url, interrupt: interrupt) {
                interrupt.rearm(timeout: options.timeout)
                input = source
                reconnected.add(1, ordering: .relaxed)
                log?("the stream is back after \(String(format: "%.1f", IOInterrupt.now() - started)) s")
                return true
            }
            if IOInterrupt.now() - started > options.giveUpAfter {
                earlier.readError = "no stream for \(Int(options.giveUpAfter)) s"
                return false
            }
            // Sleep in short steps, so a stop is not kept waiting.
            let until = IOInterrupt.now() + wait
            while !interrupt.isStopped, IOInterrupt.now() < until { usleep(20_000) }
            wait = min(wait * 2, options.lastRetry)
        }
        return false
    }
}
