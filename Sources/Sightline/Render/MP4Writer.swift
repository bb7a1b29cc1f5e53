import CFFmpeg
import Foundation
import SightlineFrames
import SightlineMedia

/// Encoding settings of the rendered video.
public struct EncoderOptions: Sendable, Equatable {
    /// x264 constant rate factor (lower is better and larger).
    public var crf = 23
    /// x264 preset.
    public var preset = "veryfast"
    /// x264 frame threads (0: x264's choice, 1.5 per core). A fixed count keeps the written bytes
    /// the same on every machine (x264 writes its settings, threads included, into the stream)
    /// and bounds the memory: each frame thread holds frames of its own (about 23 MB at 1080p).
    public var threads = 0
    /// x264's rate-control lookahead in frames (nil: the preset's, 10 for veryfast). Each frame
    /// of it is about 6.5 MB at 1080p.
    public var lookahead: Int?
    public init(crf: Int = 23, preset: String = "veryfast", threads: Int = 0, lookahead: Int? = nil) {
        self.crf = crf
        self.preset = preset
        self.threads = threads
        self.lookahead = lookahead
    }
}

/// Encodes frames with libavcodec (H.264 through libx264, else MPEG-4 part 2) into a fragmented
/// MP4: each fragment is flushed as it is written, so a killed process leaves a playable file.
/// Frames keep their timestamps (variable frame rate stays) and the display rotation is kept.
public final class MP4Writer {
    public let path: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Set before init can fail, so that deinit (which runs only for a fully initialized object)
    /// frees the muxer and encoder when init throws.
    private var stream: UnsafeMutablePointer<AVStream>!
    /// The copied audio stream, and the time base its packets arrive in.
    private var audioStream: UnsafeMutablePointer<AVStream>?
    private var audioTimeBase = AVRational()
    /// True when the input's audio is copied into the file.
    public var hasAudio: Bool { audioStream != nil }
    private var finished = false
    /// Scales frames of another size to the video's.
    private let resizer = FrameScaler()

    /// A writer for the frames of `source`, with its audio stream copied unchanged when the source
    /// keeps one (`SourceOptions.keepAudio`) and MP4 can hold its codec.
    public convenience init(path: String, source: VideoFileSource, options: EncoderOptions = EncoderOptions(),
                            metadata: [(key: String, value: String)] = []) throws {
        try self.init(path: path, stream: source.info, audio: source.audioStream, options: options, metadata: metadata)
    }

    /// A writer for frames of the stream `info` describes (a camera's, for instance), with
    /// `audio`'s packets copied when given.
    public init(path: String, stream info: VideoStreamInfo, audio: UnsafeMutablePointer<AVStream>? = nil,
                options: EncoderOptions = EncoderOptions(), metadata: [(key: String, value: String)] = []) throws {
        self.path = path
        let (width, height, timeBase, frameRate) = (info.codedWidth, info.codedHeight, info.timeBase, info.frameRate)
        func fail(_ reason: String) -> SightlineError { .outputUnwritable(path: path, reason: reason) }
        var oc: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&oc, nil, "mp4", path) >= 0, let oc else { throw fail("cannot set up an MP4 muxer") }
        format = oc
        guard let encoder = avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_MPEG4),
              let ctx = avcodec_alloc_context3(encoder) else { throw fail("no H.264 or MPEG-4 encoder in this FFmpeg") }
        codec = ctx
        let encoderName = String(cString: encoder.pointee.name)
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        // The drawn copy keeps a YUV input's values, so its colour description is the input's; an
        // RGB input (matrix 0) is turned into BT.601 video-range YUV by swscale.
        let color = info.color.matrix == 0 ? ColorDescription(primaries: info.color.primaries, transfer: info.color.transfer,
                                                               matrix: 6, fullRange: false) : info.color
        ctx.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(color.primaries))
        ctx.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(color.transfer))
        ctx.pointee.colorspace = AVColorSpace(rawValue: UInt32(color.matrix))
        ctx.pointee.color_range = color.fullRange.map { $0 ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG } ?? AVCOL_RANGE_UNSPECIFIED
        ctx.pointee.time_base = av_make_q(Int32(timeBase.num), Int32(timeBase.den))
        if frameRate.num > 0 && frameRate.den > 0 { ctx.pointee.framerate = av_make_q(Int32(frameRate.num), Int32(frameRate.den)) }
        // A keyframe, and so a flushed fragment, about every second: a killed run loses at most that.
        let fps = frameRate.den > 0 ? Double(frameRate.num) / Double(frameRate.den) : 30
        ctx.pointee.gop_size = Int32(max(1, min(600, fps.rounded())))
        // No B-frames: the fragmented MP4 then starts at the input's first timestamp (with them the
        // decoding delay would shift every pts) and each frame is written as soon as it is drawn.
        ctx.pointee.max_b_frames = 0
        if (oc.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 {
            ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        if encoderName == "libx264" {
            av_opt_set(ctx.pointee.priv_data, "crf", String(options.crf), 0)
            av_opt_set(ctx.pointee.priv_data, "preset", options.preset, 0)
            if options.threads > 0 { ctx.pointee.thread_count = Int32(options.threads) }
            if let lookahead = options.lookahead { av_opt_set(ctx.pointee.priv_data, "x264-params", "rc-lookahead=\(lookahead)", 0) }
        } else {
            ctx.pointee.bit_rate = Int64(width * height * 4)   // MPEG-4 part 2 needs a bit rate
        }
        // libx264 refuses 4:2:0 pictures of odd size with a generic error: say what it is.
        guard encoderName != "libx264" || (width % 2 == 0 && height % 2 == 0) else {
            throw fail("H.264 (4:2:0) needs an even width and height, the video is \(width)x\(height)")
        }
        var ret = avcodec_open2(ctx, encoder, nil)
        guard ret >= 0 else { throw fail("cannot open the \(encoderName) encoder: \(FFmpegError(ret))") }
        guard let st = avformat_new_stream(oc, nil) else { throw fail("cannot add a video stream") }
        stream = st
        avcodec_parameters_from_context(st.pointee.codecpar, ctx)
        st.pointee.time_base = ctx.pointee.time_base
        if info.rotation != 0 { _ = sl_set_stream_rotation(st, Int32(info.rotation)) }
        if let audio, avformat_query_codec(oc.pointee.oformat, audio.pointee.codecpar.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1,
           let a = avformat_new_stream(oc, nil), avcodec_parameters_copy(a.pointee.codecpar, audio.pointee.codecpar) >= 0 {
            a.pointee.codecpar.pointee.codec_tag = 0
            a.pointee.time_base = audio.pointee.time_base
            audioStream = a
            audioTimeBase = audio.pointee.time_base
        }

        ret = avio_open(&oc.pointee.pb, path, AVIO_FLAG_WRITE)
        guard ret >= 0 else { throw fail("\(FFmpegError(ret))") }
        // Fragmented MP4 flushed per fragment: what was written stays playable if the process dies.
        oc.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        for (key, value) in metadata { av_dict_set(&oc.pointee.metadata, key, value, 0) }
        var dict: OpaquePointer?
        av_dict_set(&dict, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0)
        ret = avformat_write_header(oc, &dict)
        av_dict_free(&dict)
        guard ret >= 0 else { throw fail("\(FFmpegError(ret))") }
        packet = av_packet_alloc()
    }

    deinit {
        if let format, format.pointee.pb != nil { avio_closep(&format.pointee.pb) }
        avformat_free_context(format)
        avcodec_free_context(&codec)
        av_packet_free(&packet)
    }

    /// Encodes one YUV 4:2:0 frame (its pts in the time base given at creation). A frame of
    /// another size than the video's (a stream whose frames change size) is scaled to the video's
    /// size, the stream's first: one MP4 with one size, which every player shows.
    public func write(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
        guard let codec, frame.pointee.width != codec.pointee.width || frame.pointee.height != codec.pointee.height else {
            return try send(frame)
        }
        var scaled: UnsafeMutablePointer<AVFrame>? = try resizer.converted(frame, to: AV_PIX_FMT_YUV420P,
                                                                           size: (codec.pointee.width, codec.pointee.height))
        defer { av_frame_free(&scaled) }
        scaled!.pointee.pts = frame.pointee.pts
        scaled!.pointee.color_range = frame.pointee.color_range
        scaled!.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try send(scaled)
    }

    /// Copies audio packets unchanged (the muxer interleaves them with the video); frees them.
    func writeAudio(_ packets: [UnsafeMutablePointer<AVPacket>]) throws {
        for packet in packets {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            defer { av_packet_free(&owned) }
            guard let audioStream, let format, !finished else { continue }
            av_packet_rescale_ts(packet, audioTimeBase, audioStream.pointee.time_base)
            packet.pointee.stream_index = audioStream.pointee.index
            packet.pointee.pos = -1
            let ret = av_interleaved_write_frame(format, packet)
            guard ret >= 0 else { throw SightlineError.writeFailed(path: path, reason: "\(FFmpegError(ret))") }
        }
    }

    /// Drains the encoder and closes the file. The file is closed also when draining fails, so
    /// the fragments written stay playable.
    public func finish() throws {
        guard !finished, let format else { return }
        finished = true
        defer {
            av_write_trailer(format)
            avio_closep(&format.pointee.pb)
        }
        try send(nil)
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let format, let packet else { return }
        var ret = avcodec_send_frame(codec, frame)
        guard ret >= 0 else { throw SightlineError.writeFailed(path: path, reason: "encoder: \(FFmpegError(ret))") }
        while true {
            ret = avcodec_receive_packet(codec, packet)
            if ret == sl_averror(EAGAIN) || ret == sl_averror_eof() { return }
            guard ret >= 0 else { throw SightlineError.writeFailed(path: path, reason: "encoder: \(FFmpegError(ret))") }
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            ret = av_interleaved_write_frame(format, packet)
            guard ret >= 0 else { throw SightlineError.writeFailed(path: path, reason: "\(FFmpegError(ret))") }
        }
    }
}
