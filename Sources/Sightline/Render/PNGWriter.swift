import CFFmpeg
import Foundation
import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// Writes RGB pictures as PNG files with FFmpeg's png encoder (no image library of its own).
public enum PNGWriter {
    /// Encodes `image` and writes it to `path` (replacing what is there).
    public static func write(_ image: RGBImage, to path: String) throws {
        let data = try encode(image)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw SightlineError.outputUnwritable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        try data.withUnsafeBytes { try writeAll(fd, $0, path: path) }
    }

    /// The PNG file's bytes.
    static func encode(_ image: RGBImage) throws -> Data {
        func fail(_ reason: String) -> SightlineError { .internal("PNG encoding: \(reason)") }
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_PNG) else { throw fail("this FFmpeg has no png encoder") }
        var codec = avcodec_alloc_context3(encoder)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&codec)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
        guard let codec, let frame, let packet else { throw fail("out of memory") }
        codec.pointee.width = Int32(image.width)
        codec.pointee.height = Int32(image.height)
        codec.pointee.pix_fmt = AV_PIX_FMT_RGB24
        codec.pointee.time_base = av_make_q(1, 25)
        var ret = avcodec_open2(codec, encoder, nil)
        guard ret >= 0 else { throw fail("\(FFmpegError(ret))") }
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        frame.pointee.pts = 0
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw fail("out of memory") }
        let rowBytes = image.width * 3
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<image.height {
                (frame.pointee.data.0! + row * Int(frame.pointee.linesize.0))
                    .update(from: pixels.baseAddress! + row * rowBytes, count: rowBytes)
            }
        }
        ret = avcodec_send_frame(codec, frame)
        guard ret >= 0 else { throw fail("\(FFmpegError(ret))") }
        avcodec_send_frame(codec, nil)
        var out = Data()
        while avcodec_receive_packet(codec, packet) >= 0 {
            out.append(packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !out.isEmpty else { throw fail("the encoder gave no data") }
        return out
    }
}
