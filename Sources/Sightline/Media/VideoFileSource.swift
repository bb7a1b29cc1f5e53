import CFFmpeg
import Foundation
import SightlineFrames
import Synchronization

/// What a source tells about the video stream it reads: the `stream` record's facts.
public struct VideoStreamInfo: Sendable {
    public var source: String
    public var container: String
    public var codec: String
    public var streamIndex: Int
    public var codedWidth: Int
    public var codedHeight: Int
    /// Degrees clockwise the picture is turned for display (from the display matrix).
    public var rotation: Int
    public var displayWidth: Int { rotation == 90 || rotation == 270 ? codedHeight : codedWidth }
    public var displayHeight: Int { rotation == 90 || rotation == 270 ? codedWidth : codedHeight }
    public var timeBase: (num: Int, den: Int)
    public var frameRate: (num: Int, den: Int)
    /// Seconds, when the container knows it.
    public var duration: Double?
    /// Number of frames, when the container knows it (an estimate for progress only).
    public var frameCountHint: Int?
    /// How the picture's values map to colours, carried into rendered videos.
    public var color = ColorDescription()
    /// The container's start time (seconds in the file's own timestamps): the origin of `t` and of
    /// ffmpeg's `-ss`. nil when the container has none (then the stream's start is the origin).
    public var containerStartTime: Double?
    /// The video stream's first presentation time in the file's own timestamps, when known.
    public var streamStartTime: Double?
    /// True when frames are not evenly spaced in time (from the container's index when it has one
    /// for every frame, else from FFmpeg's guess: average rate unlike the base rate).
    public var variableFrameRate = false
    /// What `t` is counted from, in the file's own seconds.
    public var timelineOrigin: Double { containerStartTime ?? streamStartTime ?? 0 }
    /// Where the video stream starts on that timeline (after the audio, say).
    public var streamOffset: Double { (streamStartTime ?? timelineOrigin) - timelineOrigin }
}

/// Colour primaries, transfer characteristics and matrix as ITU-T H.273 code points (2 is
/// "unspecified"), and the value range: what a player needs to show the picture's colours right.
public struct ColorDescription: Sendable, Equatable {
    public var primaries = 2
    public var transfer = 2
    public var matrix = 2
    /// nil when unspecified.
    public var fullRange: Bool?
    public init(primaries: Int = 2, transfer: Int = 2, matrix: Int = 2, fullRange: Bool? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}

public struct SourceOptions: Sendable {
    /// Index of the stream to read; nil picks the best video stream.
    public var streamIndex: Int?
    /// Skip to this time (seconds on the file's timeline) before the first frame, like ffmpeg's -ss.
    public var start: Double?
    /// Also deliver the frames of this many seconds before `start` (a shard's warm-up); `duration`
    /// still counts from `start`.
    public var warmup: Double = 0
    /// Stop after this many seconds, like ffmpeg's -t.
    public var duration: Double?
    /// Also deliver up to this many frames after `duration` (a cool-down: looking back on them
    /// completes the last frames of the span; the run does not write them).
    public var cooldownFrames = 0
    /// Let the demuxer open network protocols and playlists (refused by default: untrusted media).
    public var allowNetwork = false
    /// Network protocols the demuxer may open (a comma-separated list, FFmpeg's
    /// `protocol_whitelist`), for a live network stream (`capture`); nil: files and pipes only
    /// (or anything with `allowNetwork`). Playlists stay refused.
    public var protocols: String?
    /// Interrupts blocking reads and opens of a network stream (a stop, or no data in time).
    public var interrupt: IOInterrupt?
    /// A live stream: the packets read while the stream is probed are not kept for decoding
    /// (FFmpeg's `fflags nobuffer`); they would come at once after it, already late.
    public var discardsProbedPackets = false
    /// Decoder threads; 0 lets libavcodec choose.
    public var decoderThreads = 0
    /// Keep the best audio stream's packets for copying into a rendered video (whole file only).
    public var keepAudio = false
    /// Decode only these key frames (`sightline scan`; whole file only): every packet is read,
    /// the others are never decoded.
    public var keyFrames: KeyFrameSampling?

    public init(streamIndex: Int? = nil, start: Double? = nil, duration: Double? = nil, warmup: Double = 0,
                allowNetwork: Bool = false, decoderThreads: Int = 0, keepAudio: Bool = false,
                keyFrames: KeyFrameSampling? = nil) {
        self.keepAudio = keepAudio
        self.keyFrames = keyFrames
        self.warmup = warmup
        self.streamIndex = streamIndex
        self.start = start
        self.duration = duration
        self.allowNetwork = allowNetwork
        self.decoderThreads = decoderThreads
    }
}

/// Reads the video frames of a file (or pipe) in presentation order with libavformat/libavcodec.
/// One instance is used by one thread.
public final class VideoFileSource {
    public let info: VideoStreamInfo
    public private(set) var damage = DecodeDamage()

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let grayScaler = FrameScaler()
    private let rotation: Rotation
    private let timeBase: AVRational
    /// The origin of `t` in the stream's time base units (seconds).
    private let origin: Double
    /// Frames decoded after a seek, and the stream position of the first of them (found at the
    /// first decoded frame: see `positionBase`).
    private var decodedSinceSeek = 0
    private var firstPosition: Int?
    /// Evenly spaced frames (from a complete index): the first pts and the step between frames.
    private var uniformGrid: (first: Int64, step: Int64)?
    /// Without an even grid: the pts of every packet from the file's start to a little past the
    /// seek target, read before seeking, to count the frames before the first decoded one.
    private var scannedPTS: [Int64]?
    private let seeked: Bool
    private let startSeconds: Double?
    private let endSeconds: Double?
    /// Frames after `endSeconds` still to deliver (`SourceOptions.cooldownFrames`).
    private var cooldownLeft: Int
    private var draining = false
    private var finished = false
    private var delivered = 0
    /// The pts of the last frame handed out: every later frame must have a larger one.
    private var lastPTS: Int64?
    /// The timeline goes on through jumps of the stream's own clock (segments joined end to end,
    /// a camera that restarted), as ffmpeg's own tools do: from a jump on, `clockOffset` (in the
    /// time base) is added to every packet's pts and dts.
    private let clock: ClockFollower
    /// Clock jumps that no frame handed out has reached yet, with the time without packets
    /// before each (live streams).
    private var pendingJumps: [(startPTS: Int64, jump: DiscontinuityRecord.ClockJump, arrivalGap: Double?)] = []
    /// Live streams (read with an interrupt): the least difference of arrival (monotonic seconds)
    /// and pts seconds over the packets of the current piece — a stream sent in real time
    /// arrives on this schedule; the demuxer hands a packet out only when the next one begins,
    /// so one packet's own arrival says little — and the first and latest pts seconds.
    private var arrivalAnchor: Double?
    private var firstPTSSeconds: Double?
    private var latestPTSSeconds: Double?
    /// When the first and the latest frame of a live stream arrived by that schedule.
    public var firstArrival: Double? { arrivalAnchor.flatMap { a in firstPTSSeconds.map { a + $0 } } }
    public var latestArrival: Double? { arrivalAnchor.flatMap { a in latestPTSSeconds.map { a + $0 } } }
    /// The displayed size of the last frame decoded: a frame of another size starts a new piece.
    private var lastSize: FrameSize?
    /// The pts of the last video packet read when it was flagged corrupt (counted once the next
    /// one is seen), and those of such packets forgiven at a join (their frames carry the flag).
    private var corruptPending: [(pts: Int64, packetsLeft: Int)] = []
    private var forgivenPTS = Set<Int64>()
    /// The last frame decoded before the first one delivered (after a seek): what shot-cut
    /// detection compares the first frame with.
    public private(set) var frameBeforeStart: VideoFrame?
    /// Key frames only: which to decode, and the time of every packet of the stream read so far
    /// (a frame's stream position is the number of packets presented before it).
    private var keyFrameChooser: KeyFrameSampling.Chooser?
    private var packetTimes: [Int64] = []
    private var packetTimesSorted = true
    /// Video packets read, and how many of them were key frames (key frames only).
    public private(set) var packetsRead = 0
    public private(set) var keyPacketsRead = 0
    /// The audio stream whose packets are kept (`keepAudio`), and the packets not taken yet.
    package let audioStream: UnsafeMutablePointer<AVStream>?
    private let audio = AudioPackets()
    /// Kept alive while the demuxer may call it.
    private var interrupt: IOInterrupt?

    /// Demuxers that open further files or URLs named inside the input.
    private static let playlistFormats: Set<String> = ["hls", "applehttp", "concat", "dash", "tee", "ffmetadata"]

    public init(path: String, options: SourceOptions = SourceOptions()) throws {
        let url = path == "-" ? "pipe:0" : path
        if path != "-", options.protocols == nil {
            try Self.checkReadable(path)
        }

        var dict: OpaquePointer?
        if options.discardsProbedPackets { av_dict_set(&dict, "fflags", "nobuffer", 0) }
        if let protocols = options.protocols {
            av_dict_set(&dict, "protocol_whitelist", protocols, 0)
        } else if !options.allowNetwork {
            av_dict_set(&dict, "protocol_whitelist", "file,pipe", 0)
        }
        var fmt: UnsafeMutablePointer<AVFormatContext>? = options.interrupt == nil ? nil : avformat_alloc_context()
        interrupt = options.interrupt
        if let interrupt = options.interrupt, let fmt {
            fmt.pointee.interrupt_callback.callback = { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<IOInterrupt>.fromOpaque(opaque).takeUnretainedValue().isDue ? 1 : 0
            }
            fmt.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
            interrupt.arm()
        }
        var ret = avformat_open_input(&fmt, url, nil, &dict)
        av_dict_free(&dict)
        guard ret >= 0, let fmt else {
            throw Self.openError(path: path, code: ret)
        }
        format = fmt
        // From here on, deinit frees what was allocated if init throws.
        let containerName = String(cString: fmt.pointee.iformat.pointee.name)
        interrupt?.arm()
        if !options.allowNetwork, !Self.playlistFormats.isDisjoint(with: containerName.split(separator: ",").map(String.init)) {
            avformat_close_input(&format)
            throw SightlineError.notMedia(path: path, reason: "\(containerName) playlists are refused (they open other files); use --allow-network to permit them")
        }
        ret = avformat_find_stream_info(fmt, nil)
        if ret < 0 {
            avformat_close_input(&format)
            throw SightlineError.notMedia(path: path, reason: "\(FFmpegError(ret))")
        }

        let streamCount = Int(fmt.pointee.nb_streams)
        let index: Int
        if let wanted = options.streamIndex {
            guard wanted >= 0, wanted < streamCount,
                  fmt.pointee.streams[wanted]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
                avformat_close_input(&format)
                throw SightlineError.noVideoStream(path: path, reason: "stream \(wanted) is not a video stream (the file has \(streamCount) streams)")
            }
            index = wanted
        } else {
            let best = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            guard best >= 0 else {
                avformat_close_input(&format)
                throw SightlineError.noVideoStream(path: path, reason: "no video stream (the file has \(streamCount) other streams)")
            }
            index = Int(best)
        }
        let stream = fmt.pointee.streams[index]!
        let params = stream.pointee.codecpar!
        // Only the chosen stream's packets matter; the demuxer may drop the others early.
        var audioIndex = -1
        if options.keepAudio, options.start == nil, options.duration == nil {
            audioIndex = Int(av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, Int32(index), nil, 0))
        }
        audioStream = audioIndex >= 0 ? fmt.pointee.streams[audioIndex] : nil
        for i in 0..<streamCount where i != index && i != audioIndex {
            fmt.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }

        guard let decoder = avcodec_find_decoder(params.pointee.codec_id) else {
            // The codec's name before closing: closing frees the stream's parameters.
            let codecName = String(cString: avcodec_get_name(params.pointee.codec_id))
            avformat_close_input(&format)
            throw SightlineError.notMedia(path: path, reason: "no decoder for codec \(codecName)")
        }
        codec = avcodec_alloc_context3(decoder)
        guard let codec else { throw SightlineError.internal("out of memory allocating a decoder") }
        avcodec_parameters_to_context(codec, params)
        codec.pointee.thread_count = Int32(options.decoderThreads)
        codec.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        codec.pointee.pkt_timebase = stream.pointee.time_base
        if let keyFrames = options.keyFrames {
            // Belt and braces: only key packets are sent, and the decoder drops anything else.
            codec.pointee.skip_frame = AVDISCARD_NONKEY
            keyFrameChooser = KeyFrameSampling.Chooser(keyFrames)
        }
        ret = avcodec_open2(codec, decoder, nil)
        if ret < 0 {
            throw SightlineError.notMedia(path: path, reason: "cannot open the \(String(cString: decoder.pointee.name)) decoder: \(FFmpegError(ret))")
        }
        guard params.pointee.width > 0, params.pointee.height > 0 else {
            throw SightlineError.notMedia(path: path, reason: "video stream \(index) has no picture size")
        }
        packet = av_packet_alloc()
        frame = av_frame_alloc()

        timeBase = stream.pointee.time_base
        let tb = av_q2d(timeBase)
        let streamStart = stream.pointee.start_time == sl_nopts_value() ? nil : Double(stream.pointee.start_time) * tb
        let containerStart = fmt.pointee.start_time == sl_nopts_value() ? nil : Double(fmt.pointee.start_time) / Double(AV_TIME_BASE)
        uniformGrid = Self.evenGrid(stream)
        let variable: Bool
        if uniformGrid != nil {
            variable = false
        } else if Int(avformat_index_get_entries_count(stream)) == Int(stream.pointee.nb_frames), stream.pointee.nb_frames > 1 {
            variable = true   // a complete index whose steps differ
        } else {
            let r = stream.pointee.r_frame_rate, a = stream.pointee.avg_frame_rate
            variable = r.num > 0 && a.num > 0 && av_cmp_q(r, a) != 0
        }
        let degrees = Int(sl_stream_rotation(stream))
        rotation = Rotation(degrees: degrees, codedWidth: Int(params.pointee.width), codedHeight: Int(params.pointee.height))
        let rate = av_guess_frame_rate(fmt, stream, nil)
        var duration: Double?
        if stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * tb
        } else if fmt.pointee.duration > 0 {
            duration = Double(fmt.pointee.duration) / Double(AV_TIME_BASE)
        }
        let frames = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        info = VideoStreamInfo(
            source: path, container: containerName,
            codec: String(cString: avcodec_get_name(params.pointee.codec_id)),
            streamIndex: index, codedWidth: Int(params.pointee.width), codedHeight: Int(params.pointee.height),
            rotation: degrees, timeBase: (Int(timeBase.num), Int(timeBase.den)),
            frameRate: (Int(rate.num), Int(rate.den)), duration: duration, frameCountHint: frames,
            color: ColorDescription(primaries: Int(params.pointee.color_primaries.rawValue),
                                    transfer: Int(params.pointee.color_trc.rawValue),
                                    matrix: Int(params.pointee.color_space.rawValue),
                                    fullRange: params.pointee.color_range == AVCOL_RANGE_JPEG ? true
                                        : params.pointee.color_range == AVCOL_RANGE_MPEG ? false : nil),
            containerStartTime: containerStart, streamStartTime: streamStart, variableFrameRate: variable)
        origin = info.timelineOrigin

        let clockMayJump = (fmt.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT) != 0
        let step: Int64 = rate.num > 0 && rate.den > 0 ? max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), timeBase)) : 1
        clock = ClockFollower(timeBase: timeBase, mayJump: clockMayJump, frameStep: step)

        let from = options.start.map { max(0, $0 - max(0, options.warmup)) }
        startSeconds = from
        endSeconds = options.duration.map { (options.start ?? 0) + $0 }
        cooldownLeft = options.cooldownFrames
        // A format whose clock may jump is read from its start (the frames before `start` decoded
        // and dropped): its pts may repeat, so only reading the whole way gives the timeline.
        seeked = (from ?? 0) > 0 && !clockMayJump
        if let from, from > 0, !clockMayJump {
            // Seek to the keyframe at or before the start (on the same origin as ffmpeg's -ss);
            // frames before the start are decoded and dropped.
            // One frame earlier, so the frame before the first one is decoded too (cut detection).
            let rate = info.frameRate
            let frameSeconds = rate.num > 0 && rate.den > 0 ? Double(rate.den) / Double(rate.num) : 0
            let target = Int64(((max(0, from - frameSeconds) + origin) / tb).rounded(.down))
            if uniformGrid == nil { scannedPTS = scanPacketTimes(until: target) }
            ret = avformat_seek_file(fmt, Int32(index), Int64.min, target, target, 0)
            if ret < 0 {
                throw SightlineError.notMedia(path: path, reason: "cannot seek to \(from) s: \(FFmpegError(ret))")
            }
        }
    }

    /// The first pts and the step of a stream whose container indexes every frame at evenly
    /// spaced decoding times (MP4/MOV at a constant rate); nil otherwise.
    private static func evenGrid(_ stream: UnsafeMutablePointer<AVStream>) -> (first: Int64, step: Int64)? {
        let count = Int(avformat_index_get_entries_count(stream))
        guard count >= 2, stream.pointee.nb_frames == Int64(count), stream.pointee.start_time != sl_nopts_value(),
              let e0 = avformat_index_get_entry(stream, 0), let e1 = avformat_index_get_entry(stream, 1) else { return nil }
        let step = e1.pointee.timestamp - e0.pointee.timestamp
        guard step > 0 else { return nil }
        var previous = e1.pointee.timestamp
        for i in 2..<count {
            guard let e = avformat_index_get_entry(stream, Int32(i)) else { return nil }
            if e.pointee.timestamp - previous != step { return nil }
            previous = e.pointee.timestamp
        }
        return (stream.pointee.start_time, step)
    }

    /// Reads (demuxes, without decoding) the video packets from where the demuxer stands to a
    /// little past `target`, and returns their presentation times, sorted. Frames are then
    /// numbered by counting those before the first frame decoded after the seek.
    private func scanPacketTimes(until target: Int64) -> [Int64] {
        guard let format, let packet else { return [] }
        var times: [Int64] = []
        var pastTarget = 0
        // Frames are reordered by at most a few places: 64 packets past the target are enough.
        while pastTarget < 64, av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard Int(packet.pointee.stream_index) == info.streamIndex else { continue }
            let time = packet.pointee.pts != sl_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            guard time != sl_nopts_value() else { continue }
            times.append(time)
            if (packet.pointee.dts != sl_nopts_value() ? packet.pointee.dts : time) > target { pastTarget += 1 }
        }
        return times.sorted()
    }

    /// Whether the container's timestamps may jump (MPEG-TS …): then only reading the packets
    /// tells where the timeline ends.
    public var clockMayJump: Bool { clock.mayJump }

    /// Demuxes the whole file without decoding: the keyframes' times (`t`), and, when the
    /// stream's clock jumped, where its continuous timeline ends (the latest packet's time plus
    /// its duration; the container's duration then covers the last piece only). Use on a source
    /// that has not delivered frames; it reads to the end.
    public func scanTimeline() -> (keyframes: [Double], end: Double?) {
        guard let format, let packet else { return ([], nil) }
        var times: [Double] = []
        var end: Double?
        var jumped = false
        let tb = av_q2d(timeBase)
        while av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard Int(packet.pointee.stream_index) == info.streamIndex else { continue }
            if clock.follow(packet) != nil { jumped = true }
            guard packet.pointee.pts != sl_nopts_value() else { continue }
            let t = Double(packet.pointee.pts) * tb - origin
            end = max(end ?? t, t + Double(max(0, packet.pointee.duration)) * tb)
            guard (packet.pointee.flags & AV_PKT_FLAG_KEY) != 0 else { continue }
            times.append(t)
        }
        finished = true
        return (times.sorted(), jumped ? end : nil)
    }

    /// The stream position of the first frame decoded after a seek, whose pts is `pts`.
    private func positionBase(pts: Int64) -> Int {
        if let grid = uniformGrid {
            return Int((Double(pts - grid.first) / Double(grid.step)).rounded())
        }
        if let times = scannedPTS { return Self.countBelow(pts, in: times) }
        return 0
    }

    /// Audio packets read so far and not yet taken (in the audio stream's time base). The caller
    /// owns them. Safe to call from another thread than the one reading frames.
    package func takeAudioPackets() -> [UnsafeMutablePointer<AVPacket>] { audio.takeAll() }

    /// The container's tags (title, date, …) but those a muxer writes itself.
    public var containerMetadata: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(format?.pointee.metadata, "", entry, Int32(AV_DICT_IGNORE_SUFFIX)) {
            entry = next
            let key = String(cString: next.pointee.key)
            if ["major_brand", "minor_version", "compatible_brands", "encoder"].contains(key) { continue }
            out.append((key, String(cString: next.pointee.value)))
        }
        return out
    }

    deinit {
        for packet in audio.takeAll() {
            var p: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&p)
        }
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The next frame in presentation order, or nil at the end of the stream (or of --duration).
    public func nextFrame() throws -> VideoFrame? {
        while !finished {
            if let decoded = try receiveFrame() {
                if let out = try deliver(decoded) { return out }
                continue
            }
            if draining {
                finished = true
                noteEarlyEnd()
                break
            }
            readPacket()
        }
        return nil
    }

    // MARK: - Decoding steps

    /// One decoded frame if the decoder has one ready.
    private func receiveFrame() throws -> UnsafeMutablePointer<AVFrame>? {
        guard let codec, let frame else { return nil }
        while true {
            let ret = avcodec_receive_frame(codec, frame)
            if ret == sl_averror(EAGAIN) || ret == sl_averror_eof() { return nil }
            if ret < 0 {
                damage.corruptFrames += 1
                if draining { return nil }
                continue
            }
            if frame.pointee.decode_error_flags != 0
                || ((frame.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 && forgivenPTS.remove(frame.pointee.pts) == nil) {
                damage.corruptFrames += 1
            }
            return frame
        }
    }

    /// A container that indexes its frames (MP4, MOV) tells how many there should be: fewer means
    /// the file was cut short.
    private func noteEarlyEnd() {
        let seen = keyFrameChooser == nil ? delivered + damage.outOfOrderFrames : packetsRead
        guard damage.readError == nil, startSeconds == nil, endSeconds == nil,
              let expected = info.frameCountHint, seen < expected else { return }
        damage.readError = "truncated: the file ends after \(seen) of \(expected) frames"
    }

    /// Reads one packet of the chosen stream into the decoder; at the end, starts draining.
    private func readPacket() {
        guard let format, let codec, let packet else { draining = true; return }
        interrupt?.arm()
        let ret = av_read_frame(format, packet)
        if ret < 0 {
            damage.corruptFrames += corruptPending.count
            corruptPending.removeAll()
            if ret != sl_averror_eof() {
                damage.readError = "read error: \(FFmpegError(ret))"
            } else if format.pointee.pb != nil, format.pointee.pb.pointee.error < 0 {
                damage.readError = "read error: \(FFmpegError(format.pointee.pb.pointee.error))"
            }
            avcodec_send_packet(codec, nil)
            draining = true
            return
        }
        defer { av_packet_unref(packet) }
        if let audioStream, packet.pointee.stream_index == audioStream.pointee.index {
            if let copy = av_packet_clone(packet) { audio.append(copy) }
            return
        }
        guard Int(packet.pointee.stream_index) == info.streamIndex else { return }
        let jump = clock.follow(packet)
        var arrivalGap: Double?
        if interrupt != nil, packet.pointee.pts != sl_nopts_value() {
            let now = IOInterrupt.now(), seconds = Double(packet.pointee.pts) * av_q2d(timeBase)
            if jump != nil {
                // From when the latest frame was due to now; the new piece has a schedule of its own.
                arrivalGap = latestArrival.map { now - $0 }
                arrivalAnchor = nil
            }
            arrivalAnchor = min(arrivalAnchor ?? .infinity, now - seconds)
            if firstPTSSeconds == nil { firstPTSSeconds = seconds }
            latestPTSSeconds = max(latestPTSSeconds ?? -.infinity, seconds)
        }
        if let jump { pendingJumps.append((jump.startPTS, jump.jump, arrivalGap)) }
        // Segments joined end to end restart MPEG-TS continuity counters, so the demuxer flags one
        // of the last packets before the join as corrupt: in a format whose clock may jump, such
        // a flag is not counted when one of the next two packets starts a clock jump (the decoder
        // still counts a picture it cannot decode). Elsewhere it is counted at once.
        if !clock.mayJump {
            if (packet.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 { damage.corruptFrames += 1 }
        } else if jump != nil {
            forgivenPTS.formUnion(corruptPending.map(\.pts))
            corruptPending.removeAll()
        } else {
            for i in corruptPending.indices { corruptPending[i].packetsLeft -= 1 }
            damage.corruptFrames += corruptPending.count { $0.packetsLeft == 0 }
            corruptPending.removeAll { $0.packetsLeft == 0 }
        }
        if clock.mayJump, (packet.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 { corruptPending.append((packet.pointee.pts, 2)) }
        if keyFrameChooser != nil, !takeKeyFrame(packet) { return }
        let sent = avcodec_send_packet(codec, packet)
        if sent < 0 && sent != sl_averror(EAGAIN) {
            damage.corruptFrames += 1
        }
    }

    /// Key frames only: notes the packet's time and says whether it is decoded. A packet without
    /// timestamps (a raw elementary stream) is given its place in decoding order as its pts, as
    /// a whole read counts such frames, and is sampled by its place at the frame rate.
    private func takeKeyFrame(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        var time = packet.pointee.pts != sl_nopts_value() ? packet.pointee.pts : packet.pointee.dts
        var seconds = Double(time) * av_q2d(timeBase) - origin
        if time == sl_nopts_value() {
            time = Int64((origin / av_q2d(timeBase)).rounded()) + Int64(packetsRead)
            packet.pointee.pts = time
            let rate = info.frameRate
            seconds = rate.num > 0 && rate.den > 0 ? Double(packetsRead) * Double(rate.den) / Double(rate.num) : 0
        }
        if let last = packetTimes.last, time < last { packetTimesSorted = false }
        packetTimes.append(time)
        packetsRead += 1
        guard (packet.pointee.flags & AV_PKT_FLAG_KEY) != 0 else { return false }
        keyPacketsRead += 1
        return keyFrameChooser!.take(seconds)
    }

    /// Key frames only: the stream position of the frame whose pts is `pts`, from the packets
    /// read so far (final once the stream has been read to its end: a frame shown before a key
    /// frame may be stored after it).
    public func streamPosition(ofPTS pts: Int64) -> Int {
        if !packetTimesSorted {
            packetTimes.sort()
            packetTimesSorted = true
        }
        return Self.countBelow(pts, in: packetTimes)
    }

    /// How many of the sorted `times` are before `pts`: the stream position of the frame at `pts`.
    private static func countBelow(_ pts: Int64, in times: [Int64]) -> Int {
        var lo = 0, hi = times.count
        while lo < hi { let mid = (lo + hi) / 2; if times[mid] < pts { lo = mid + 1 } else { hi = mid } }
        return lo
    }

    /// Wraps a decoded frame as a `VideoFrame`, or nil when it lies outside --start/--duration.
    private func deliver(_ decoded: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame? {
        defer { av_frame_unref(decoded) }
        var pts = decoded.pointee.pts
        if pts == sl_nopts_value() { pts = decoded.pointee.best_effort_timestamp }
        let tb = av_q2d(timeBase)
        if pts == sl_nopts_value() { pts = Int64(((origin / tb) + Double(delivered)).rounded()) }   // no timing at all: count frames
        let seconds = Double(pts) * tb - origin
        if firstPosition == nil { firstPosition = seeked ? positionBase(pts: pts) : 0 }
        let position = keyFrameChooser == nil ? firstPosition! + decodedSinceSeek : streamPosition(ofPTS: pts)
        // The frame's own size: a stream may change size (a size other than the stream's gets a
        // rotation of its own, so boxes map to this frame's pixels).
        let (width, height) = (Int(decoded.pointee.width), Int(decoded.pointee.height))
        let rotation = width == Int(self.rotation.codedWidth) && height == Int(self.rotation.codedHeight) ? self.rotation
            : Rotation(degrees: self.rotation.degrees, codedWidth: width, codedHeight: height)
        let size = rotation.displaySize
        if let start = startSeconds, seconds < start - 1e-6 {
            decodedSinceSeek += 1
            while let first = pendingJumps.first, pts >= first.startPTS { pendingJumps.removeFirst() }
            lastSize = size
            if let clone = av_frame_clone(decoded) {
                let gray = try VideoFrame.lumaFormats.contains(decoded.pointee.format) ? nil
                    : grayScaler.converted(decoded, to: AV_PIX_FMT_GRAY8)
                frameBeforeStart = VideoFrame(index: -1, position: position, pts: pts, seconds: seconds, rotation: rotation,
                                              decoded: clone, gray: gray)
            }
            return nil
        }
        if let end = endSeconds, seconds >= end - 1e-6 {
            if cooldownLeft <= 0 {
                finished = true
                damage.corruptFrames += corruptPending.count
                corruptPending.removeAll()
                return nil
            }
            cooldownLeft -= 1
        }
        // A damaged stream can make the decoder emit a frame from the past: records and the
        // rendered video need presentation order, so such a frame is dropped and counted (and
        // takes no position, so the written frames' indexes still run on by one).
        if let lastPTS, pts <= lastPTS {
            damage.outOfOrderFrames += 1
            return nil
        }
        lastPTS = pts
        decodedSinceSeek += 1
        // A clock jump or a size change before this frame: the run ends every track here.
        var discontinuity = DiscontinuityRecord()
        var arrivalGap: Double?
        while let first = pendingJumps.first, pts >= first.startPTS {
            discontinuity.clock = first.jump
            arrivalGap = first.arrivalGap
            pendingJumps.removeFirst()
        }
        if let lastSize, lastSize != size {
            discontinuity.previousSize = lastSize
            discontinuity.size = size
        }
        lastSize = size
        guard let clone = av_frame_clone(decoded) else { throw SightlineError.internal("out of memory cloning a frame") }
        // A GRAY8 copy only for pixel formats without an 8-bit luma plane (RGB, 10-bit, packed YUV…).
        let gray = try VideoFrame.lumaFormats.contains(decoded.pointee.format) ? nil
            : grayScaler.converted(decoded, to: AV_PIX_FMT_GRAY8)
        defer { delivered += 1 }
        let out = VideoFrame(index: delivered, position: position, pts: pts, seconds: seconds, rotation: rotation,
                             decoded: clone, gray: gray)
        if discontinuity.clock != nil || discontinuity.size != nil { out.discontinuity = discontinuity }
        out.arrivalGap = arrivalGap
        return out
    }

    /// FFmpeg logs to standard error by itself; Sightline reports errors in one line of its own,
    /// so FFmpeg's messages are shown only when asked for.
    public static func showLibraryWarnings(_ show: Bool) {
        av_log_set_level(show ? AV_LOG_WARNING : AV_LOG_QUIET)
    }

    // MARK: - Errors

    private static func checkReadable(_ path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else {
            // A URL is never opened here: network streams are read by `capture` only.
            if Self.urlScheme(of: path) != nil {
                throw SightlineError.inputUnreadable(path: path, reason: "network URLs are not opened here (sightline capture reads rtsp://, rtsps://, srt:// and udp:// streams)")
            }
            throw SightlineError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw SightlineError.inputUnreadable(path: path, reason: "is a directory")
        }
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0 {
            throw SightlineError.notMedia(path: path, reason: "the file is empty")
        }
        if access(path, R_OK) != 0 {
            throw SightlineError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
    }

    private static func openError(path: String, code: Int32) -> SightlineError {
        let reason = FFmpegError(code).description
        if code == sl_averror(ENOENT) || code == sl_averror(EACCES) || code == sl_averror(EISDIR) || code == sl_averror(EIO) {
            return .inputUnreadable(path: path, reason: reason)
        }
        return .notMedia(path: path, reason: reason)
    }

}

/// Audio packets handed from the reading thread to the rendering thread.
private final class AudioPackets: @unchecked Sendable {
    // @unchecked Sendable: `packets` is only touched under `lock`.
    private var packets: [UnsafeMutablePointer<AVPacket>] = []
    private let lock = NSLock()

    func append(_ packet: UnsafeMutablePointer<AVPacket>) {
        lock.lock()
        packets.append(packet)
        lock.unlock()
    }

    func takeAll() -> [UnsafeMutablePointer<AVPacket>] {
        lock.lock()
        defer { lock.unlock() }
        let all = packets
        packets.removeAll()
        return all
    }
}

extension VideoFileSource {
    /// The scheme of a URL ("rtsp" in "rtsp://host/path"), or nil when `path` is not one.
    package static func urlScheme(of path: String) -> String? {
        guard let separator = path.range(of: "://") else { return nil }
        let scheme = path[..<separator.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else { return nil }
        return String(scheme)
    }
}

/// Follows a stream's own clock through jumps, as ffmpeg's tools do for formats whose timestamps
/// may be discontinuous (AVFMT_TS_DISCONT: MPEG-TS …): a video packet whose dts is more than
/// 0.1 s before the previous packet's, or more than 10 s after it, starts a new piece of the
/// timeline. In other formats only jumps of more than 10 s either way count (a damaged stream's
/// small steps back stay frames out of order). The offset puts the new piece's first packet one
/// frame after the latest pts so far, so the timeline goes on evenly and `t` stays exact within
/// each piece.
package final class ClockFollower {
    package let mayJump: Bool
    private let frameStep: Int64
    private let backward: Int64
    private let forward: Int64
    /// Added to the stream's own pts and dts.
    package private(set) var offset: Int64 = 0
    /// The last packet's dts and the latest pts so far, on the continuous timeline.
    private var lastDTS: Int64?
    private var latestPTS: Int64?

    package init(timeBase: AVRational, mayJump: Bool, frameStep: Int64) {
        self.mayJump = mayJump
        self.frameStep = frameStep
        let tb = av_q2d(timeBase)
        backward = Int64((0.1 / tb).rounded())
        forward = Int64((10 / tb).rounded())
    }

    /// Moves the packet's timestamps onto the continuous timeline; returns the jump it starts
    /// (with the continuous pts from which frames are past it), if any.
    package func follow(_ packet: UnsafeMutablePointer<AVPacket>) -> (startPTS: Int64, jump: DiscontinuityRecord.ClockJump)? {
        let nopts = sl_nopts_value()
        let rawDTS = packet.pointee.dts != nopts ? packet.pointee.dts : packet.pointee.pts
        guard rawDTS != nopts else { return nil }
        let rawPTS = packet.pointee.pts != nopts ? packet.pointee.pts : rawDTS
        var jump: (startPTS: Int64, jump: DiscontinuityRecord.ClockJump)?
        if let last = lastDTS, let latest = latestPTS {
            let delta = rawDTS + offset - last
            if delta > forward || delta < -(mayJump ? backward : forward) {
                let step = packet.pointee.duration > 0 ? packet.pointee.duration : frameStep
                let newOffset = latest + step - rawPTS
                jump = (rawPTS + newOffset, DiscontinuityRecord.ClockJump(oldPTS: latest - offset, newPTS: rawPTS, offset: newOffset))
                offset = newOffset
            }
        }
        if packet.pointee.pts != nopts { packet.pointee.pts += offset }
        if packet.pointee.dts != nopts { packet.pointee.dts += offset }
        lastDTS = rawDTS + offset
        latestPTS = max(latestPTS ?? Int64.min, rawPTS + offset)
        return jump
    }
}

/// Interrupts a network stream's blocking calls: when stopped, or when one call (an open, a
/// packet read) takes longer than `timeout` seconds (no data: the stream dropped). Safe to stop
/// from any thread.
public final class IOInterrupt: @unchecked Sendable {
    // @unchecked Sendable: `stopped` is atomic; `deadline` is written by the reading thread only
    // and read by the demuxer's callback on that thread.
    private let stopped = Atomic(false)
    private var deadline = 0.0
    public private(set) var timeout: Double

    public init(timeout: Double) { self.timeout = timeout }

    /// Another time limit for the calls from now on.
    public func rearm(timeout: Double) {
        self.timeout = timeout
        arm()
    }

    /// Gives the next blocking call `timeout` seconds.
    package func arm() { deadline = Self.now() + timeout }
    public func stop() { stopped.store(true, ordering: .relaxed) }
    public var isStopped: Bool { stopped.load(ordering: .relaxed) }
    package var isDue: Bool { isStopped || Self.now() > deadline }

    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
