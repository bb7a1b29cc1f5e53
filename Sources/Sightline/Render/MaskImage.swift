import CFFmpeg
import CVision
import Foundation
import SightlineFrames
import SightlineMedia

/// The image of `--style mask:IMAGE`, decoded once with FFmpeg (PNG with alpha, or any still
/// image format its demuxers recognize; no image library of its own) and kept as RGBA. It is
/// turned into Y'CbCr with alpha for the matrix and range of the video it is drawn on.
public final class MaskImage {
    public let path: String
    public let width: Int
    public let height: Int
    /// Rows of `rgbaStride` bytes (width x 4, padded).
    private let rgba: [UInt8]
    private var rgbaStride: Int { SwscaleBuffer.stride(width * 4) }
    /// Y, U, V and A planes (4:4:4, `planeStride` bytes per row) for the last matrix and range asked for.
    private var planes: (matrix: Int32, fullRange: Bool, data: [UInt8])?
    private var planeStride: Int { SwscaleBuffer.stride(width) }

    /// Loads and decodes the image: a missing or unreadable file, or one that is not an image,
    /// is an error naming it (before any output is written).
    public init(path: String) throws {
        self.path = path
        var st = stat()
        guard stat(path, &st) == 0 else { throw SightlineError.imageUnreadable(path: path, reason: String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw SightlineError.imageUnreadable(path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { throw SightlineError.imageUnreadable(path: path, reason: String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0 { throw SightlineError.notImage(path: path, reason: "the file is empty") }
        (width, height, rgba) = try Self.decode(path)
    }

    private static func decode(_ path: String) throws -> (Int, Int, [UInt8]) {
        func notImage(_ reason: String) -> SightlineError { .notImage(path: path, reason: reason) }
        var dict: OpaquePointer?
        av_dict_set(&dict, "protocol_whitelist", "file", 0)
        var format: UnsafeMutablePointer<AVFormatContext>?
        var ret = avformat_open_input(&format, path, nil, &dict)
        av_dict_free(&dict)
        guard ret >= 0, let fmt = format else {
            if ret == sl_averror(ENOENT) || ret == sl_averror(EACCES) {
                throw SightlineError.imageUnreadable(path: path, reason: "\(FFmpegError(ret))")
            }
            throw notImage("\(FFmpegError(ret))")
        }
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_frame_free(&frame)
            av_packet_free(&packet)
            avcodec_free_context(&codec)
            avformat_close_input(&format)
        }
        // Still-image demuxers: image2 (by file name) and the probing `*_pipe` ones (png_pipe…).
        let name = String(cString: fmt.pointee.iformat.pointee.name)
        guard name == "image2" || name.hasSuffix("_pipe") else { throw notImage("it is a \(name) file, not a still image") }
        guard avformat_find_stream_info(fmt, nil) >= 0 else { throw notImage("cannot read its stream") }
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let params = fmt.pointee.streams[Int(index)]?.pointee.codecpar,
              let decoder = avcodec_find_decoder(params.pointee.codec_id) else { throw notImage("no picture FFmpeg can decode") }
        codec = avcodec_alloc_context3(decoder)
        guard let codec, let packet, let frame else { throw SightlineError.internal("out of memory decoding \(path)") }
        avcodec_parameters_to_context(codec, params)
        ret = avcodec_open2(codec, decoder, nil)
        guard ret >= 0 else { throw notImage("\(FFmpegError(ret))") }
        // The first picture: feed packets until the decoder gives one (then drain at the end).
        var decoded = false
        while !decoded {
            ret = av_read_frame(fmt, packet)
            if ret < 0 {
                avcodec_send_packet(codec, nil)
            } else {
                if packet.pointee.stream_index == index { avcodec_send_packet(codec, packet) }
                av_packet_unref(packet)
            }
            decoded = avcodec_receive_frame(codec, frame) >= 0
            if ret < 0 && !decoded { throw notImage("no picture could be decoded") }
        }
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        guard w > 0, h > 0 else { throw notImage("the picture is empty") }
        // Formats without alpha come out opaque.
        guard let scaler = sws_getContext(Int32(w), Int32(h), AVPixelFormat(frame.pointee.format), Int32(w), Int32(h),
                                          AV_PIX_FMT_RGBA, SWS_BILINEAR, nil, nil, nil) else {
            throw notImage("its pixel format cannot be converted to RGBA")
        }
        defer { sws_freeContext(scaler) }
        let stride = SwscaleBuffer.stride(w * 4)
        var rgba = [UInt8](repeating: 0, count: stride * h + SwscaleBuffer.slack)
        try withPlanes(of: frame) { source, strides in
            rgba.withUnsafeMutableBufferPointer { out in
                _ = sws_scale(scaler, source, strides, 0, Int32(h), [out.baseAddress, nil, nil, nil], [Int32(stride), 0, 0, 0])
            }
        }
        return (w, h, rgba)
    }

    private static func withPlanes(of frame: UnsafeMutablePointer<AVFrame>,
                                   _ body: ([UnsafePointer<UInt8>?], [Int32]) throws -> Void) throws {
        let f = frame.pointee
        let data = [f.data.0, f.data.1, f.data.2, f.data.3].map { $0.map { UnsafePointer($0) } }
        try body(data, [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3])
    }

    /// Calls `body` with the image as Y'CbCr with alpha in the given matrix (709 or 601) and range.
    func withYUVA<T>(matrix: Int32, fullRange: Bool, _ body: (slv_yuva444) -> T) -> T {
        if planes?.matrix != matrix || planes?.fullRange != fullRange {
            planes = (matrix, fullRange, convert(matrix: matrix, fullRange: fullRange))
        }
        let plane = planeStride * height
        return planes!.data.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            return body(slv_yuva444(y: base, u: base + plane, v: base + 2 * plane, a: base + 3 * plane,
                                    stride: Int32(planeStride), width: Int32(width), height: Int32(height)))
        }
    }

    private func convert(matrix: Int32, fullRange: Bool) -> [UInt8] {
        let plane = planeStride * height
        var out = [UInt8](repeating: 255, count: plane * 4 + SwscaleBuffer.slack)
        guard let scaler = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height),
                                          AV_PIX_FMT_YUVA444P, SWS_BILINEAR | SWS_ACCURATE_RND, nil, nil, nil) else { return out }
        defer { sws_freeContext(scaler) }
        // RGB to Y'CbCr takes the destination's coefficients and range.
        let table = sws_getCoefficients(matrix == 709 ? SWS_CS_ITU709 : SWS_CS_ITU601)
        sws_setColorspaceDetails(scaler, table, 1, table, fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        rgba.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { o in
                let b = o.baseAddress!
                let stride = Int32(planeStride)
                _ = sws_scale(scaler, [source.baseAddress, nil, nil, nil], [Int32(rgbaStride), 0, 0, 0], 0, Int32(height),
                              [b, b + plane, b + 2 * plane, b + 3 * plane], [stride, stride, stride, stride])
            }
        }
        return out
    }
}
