import CFFmpeg
import CVision
import Foundation
import Synchronization
import SightlineFrames

/// What to capture from a camera.
public struct CameraOptions: Sendable {
    public var device = "/dev/video0"
    /// Picture size to ask for; nil keeps the device's current size.
    public var size: FrameSize?
    /// Frame rate to ask for; nil keeps the device's current rate.
    public var fps: Double?
    /// Turn the picture left to right (front cameras), before analysis: records and recordings agree.
    public var mirror = false
    /// Stop after this many frames.
    public var maxFrames: Int?
    /// Stop after this many seconds (by the camera's timestamps).
    public var maxSeconds: Double?
    /// Driver buffers: more absorb longer hiccups of the capture thread before the driver drops.
    public var buffers = 4
    /// Longest wait for one frame before the camera is declared stalled.
    public var stallSeconds = 5.0

    public init(device: String = "/dev/video0", size: FrameSize? = nil, fps: Double? = nil, mirror: Bool = false,
                maxFrames: Int? = nil, maxSeconds: Double? = nil) {
        self.device = device
        self.size = size
        self.fps = fps
        self.mirror = mirror
        self.maxFrames = maxFrames
        self.maxSeconds = maxSeconds
    }
}

/// The camera facts the `stream` record carries besides the video's.
public struct CameraFacts: Sendable {
    public var card: String
    public var driver: String
    public var bus: String
    public var mirror: Bool
    /// Whether frames arriving while the analyzers are busy are dropped from analysis (set by
    /// the run, not the camera).
    public var dropLateFrames = true
}

/// Frames from a V4L2 camera: mmap streaming through libv4l2, each buffer copied into a frame of
/// Sightline's own (turned when mirroring) and handed back to the driver at once, so the driver
/// never runs out of buffers while analysis is busy. Timestamps are the driver's, from the first
/// frame (time base 1/1000000). Gaps in the driver's frame counter are counted as `lostFrames`.
public final class CameraSource: FrameSource {
    public let info: VideoStreamInfo
    public let camera: CameraFacts
    public private(set) var damage = DecodeDamage()
    /// Frames the driver dropped before Sightline could take them (sequence-number gaps). Safe
    /// to read from any thread while capture goes on.
    public var lostFrames: Int { lost.load(ordering: .relaxed) }
    public var isLive: Bool { true }
    private let lost = Atomic(0)

    private let device: V4L2Device
    private let options: CameraOptions
    private let size: FrameSize
    /// Cameras deliver upright pictures: no rotation.
    private let rotation: Rotation
    private let bytesPerLine: Int
    /// The first frame's driver timestamp (µs); set once by the reading thread, read by others.
    private let firstTimestamp = Atomic<Int64>(Int64.min)
    /// True when the driver stamps buffers with the monotonic clock (most do), which makes
    /// latency measurable.
    private var monotonic = false
    private var lastSequence: UInt32?
    private var delivered = 0
    private var ended = false
    private var unusableInARow = 0
    private var streaming = false
    /// Unconvertible frames in a row that end the run (a camera sending only garbage).
    private static let unusableLimit = 100

    public init(options: CameraOptions) throws {
        self.options = options
        let path = options.device
        let device = try V4L2Device(path: path)
        self.device = device
        let caps = device.capability
        guard caps.canStream else {
            throw SightlineError.deviceUnsupported(path: path, reason: "the device does not stream (no mmap I/O)")
        }
        let format = try device.setYUV420(size: options.size)
        if let wanted = options.size, wanted != format.size {
            let offered = Set(device.formats().filter { !$0.emulated }.flatMap { device.frameSizes($0.fourcc) })
                .sorted { ($0.width, $0.height) < ($1.width, $1.height) }
            throw SightlineError.deviceUnsupported(path: path, reason: "size \(wanted) not offered; the camera gave \(format.size)"
                + (offered.isEmpty ? "" : " (sizes: \(offered.map(\.description).joined(separator: ", ")))"))
        }
        size = format.size
        rotation = Rotation(degrees: 0, codedWidth: size.width, codedHeight: size.height)
        bytesPerLine = format.bytesPerLine
        let fps = try device.setFrameRate(options.fps)
        if let wanted = options.fps, let fps, abs(fps - wanted) > 0.5 {
            throw SightlineError.deviceUnsupported(path: path, reason: "\(Self.format(wanted)) fps not offered at \(size); the camera gave \(Self.format(fps)) fps")
        }
        let rate = fps.map { (Int(($0 * 1000).rounded()), 1000) } ?? (0, 1)
        info = VideoStreamInfo(source: path, container: "v4l2", codec: "rawvideo", streamIndex: 0,
                               codedWidth: size.width, codedHeight: size.height, rotation: 0,
                               timeBase: (1, 1_000_000), frameRate: rate, duration: nil, frameCountHint: options.maxFrames,
                               color: Self.color)
        camera = CameraFacts(card: caps.card, driver: caps.driver, bus: caps.bus, mirror: options.mirror)
        // The buffers now (a busy camera fails before any output), the frames at `start`, once
        // the analysis is ready: none is lost while its networks compile.
        try device.prepareStreaming(buffers: options.buffers)
    }

    /// What webcams deliver, and what libv4l2's conversions assume: BT.601 (SMPTE 170M), video range.
    private static let color = ColorDescription(primaries: 6, transfer: 6, matrix: 6, fullRange: false)

    private static func format(_ fps: Double) -> String { String(format: "%g", fps) }

    /// The camera starts streaming (its buffers were queued when it was opened).
    public func start() throws {
        guard !streaming else { return }
        try device.streamOn()
        streaming = true
    }

    public func nextFrame() throws -> VideoFrame? {
        if !ended { try start() }
        while !ended {
            if let maxFrames = options.maxFrames, delivered >= maxFrames { return finish() }
            let filled: V4L2Device.FilledBuffer
            do {
                guard try device.waitForFrame(seconds: options.stallSeconds) else {
                    damage.readError = "the camera sent no frame for \(Self.format(options.stallSeconds)) s"
                    return finish()
                }
                guard let buffer = try device.dequeue() else {
                    // libv4l2 could not convert it (a broken MJPEG frame, say): skip, unless the
                    // camera sends nothing else.
                    damage.corruptFrames += 1
                    unusableInARow += 1
                    if unusableInARow >= Self.unusableLimit {
                        damage.readError = "the camera sent \(unusableInARow) frames in a row that libv4l2 could not convert"
                        return finish()
                    }
                    continue
                }
                unusableInARow = 0
                filled = buffer
            } catch {
                // Unplugged or failing mid-stream: what was captured stays valid.
                damage.readError = "capture stopped: \(error)"
                return finish()
            }
            defer { try? device.requeue(filled) }

            if let last = lastSequence, filled.sequence > last &+ 1 { lost.add(Int(filled.sequence - last - 1), ordering: .relaxed) }
            lastSequence = filled.sequence
            var first = firstTimestamp.load(ordering: .relaxed)
            if first == Int64.min {
                first = filled.timestamp
                monotonic = filled.monotonic
                firstTimestamp.store(first, ordering: .releasing)
            }
            let pts = filled.timestamp - first
            if let maxSeconds = options.maxSeconds, Double(pts) / 1e6 >= maxSeconds { return finish() }
            guard let picture = try copy(filled.bytes) else {
                damage.corruptFrames += 1
                continue
            }
            picture.pointee.pts = pts
            defer { delivered += 1 }
            return VideoFrame(index: delivered, pts: pts, seconds: Double(pts) / 1e6,
                              rotation: rotation,
                              decoded: picture, gray: nil)
        }
        return nil
    }

    /// Seconds from the capture of the frame with `pts` until now (the driver's timestamp against
    /// the monotonic clock); nil when the driver's clock is another.
    public func latency(pts: Int64) -> Double? {
        let first = firstTimestamp.load(ordering: .acquiring)
        guard first != Int64.min, monotonic else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return (Double(now.tv_sec) * 1e6 + Double(now.tv_nsec) / 1e3 - Double(first + pts)) / 1e6
    }

    private func finish() -> VideoFrame? {
        ended = true
        device.stopStreaming()
        return nil
    }

    /// The driver's planar YUV 4:2:0 bytes as a frame of our own (mirrored if asked); nil for a
    /// buffer too short to hold the picture.
    private func copy(_ bytes: UnsafeRawBufferPointer) throws -> UnsafeMutablePointer<AVFrame>? {
        let chromaLine = bytesPerLine / 2
        let lumaBytes = bytesPerLine * size.height
        let chromaBytes = chromaLine * ((size.height + 1) / 2)
        guard bytes.count >= lumaBytes + 2 * chromaBytes, let base = bytes.baseAddress else { return nil }
        guard let frame = av_frame_alloc() else { throw SightlineError.internal("out of memory allocating a frame") }
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.colorspace = AVColorSpace(rawValue: UInt32(Self.color.matrix))
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        guard av_frame_get_buffer(frame, 0) >= 0 else {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw SightlineError.internal("out of memory allocating a frame")
        }
        let source = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        let from = slv_yuv420(y: source, u: source + lumaBytes, v: source + lumaBytes + chromaBytes,
                              y_stride: Int32(bytesPerLine), u_stride: Int32(chromaLine), v_stride: Int32(chromaLine),
                              width: Int32(size.width), height: Int32(size.height))
        let p = frame.pointee
        let to = slv_yuv420(y: p.data.0, u: p.data.1, v: p.data.2, y_stride: p.linesize.0, u_stride: p.linesize.1,
                            v_stride: p.linesize.2, width: p.width, height: p.height)
        slv_copy_yuv420(from, to, options.mirror ? 1 : 0)
        return frame
    }
}
