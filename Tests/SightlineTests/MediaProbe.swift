import Foundation

/// Pictures and facts of media files, through ffmpeg and ffprobe.
enum Media {
    static func ptsList(_ path: String) throws -> [Int64] { try decodedFrames(path).pts }

    /// The pts of every frame of the first video stream, decoded to the end, and the decoder's
    /// complaints (empty for a clean file).
    static func decodedFrames(_ path: String) throws -> (pts: [Int64], errors: String) {
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts",
                                                       "-of", "csv=p=0", path])
        guard probe.status == 0 else { throw "ffprobe failed: \(probe.stderr)" }
        return (probe.stdoutText.split(separator: "\n").compactMap { Int64($0.split(separator: ",").first ?? "") }, probe.stderr)
    }

    /// Frame `index` of a video, or an image, as packed RGB (width x height x 3 bytes); with
    /// `bt709`, Y'CbCr is read with the BT.709 matrix (ffmpeg's default conversion takes BT.601).
    static func rgb(_ path: String, frame index: Int = 0, bt709: Bool = false) throws -> [UInt8] {
        let filter = "select=eq(n\\,\(index))" + (bt709 ? ",scale=in_color_matrix=bt709" : "")
        let run = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-vf", filter, "-frames:v", "1",
                                                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.status == 0 else { throw "ffmpeg failed: \(run.stderr)" }
        return [UInt8](run.stdout)
    }

    static func size(_ path: String) throws -> (width: Int, height: Int) {
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                                       "-of", "csv=p=0", path])
        let parts = probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard probe.status == 0, parts.count == 2 else { throw "ffprobe failed on \(path): \(probe.stderr)" }
        return (parts[0], parts[1])
    }

    /// Per-frame checksums of the decoded pictures.
    static func frameHashes(_ path: String) throws -> [Substring] {
        let run = try runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        guard run.status == 0 else { throw "ffmpeg failed: \(run.stderr)" }
        return run.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
    }

    /// Mean red, green and blue over a rectangle of a packed RGB picture `width` pixels wide.
    static func mean(_ rgb: [UInt8], width: Int, x: Int, y: Int, w: Int, h: Int) -> (r: Double, g: Double, b: Double) {
        var sum = (0.0, 0.0, 0.0)
        for row in y..<y + h {
            for col in x..<x + w {
                let i = (row * width + col) * 3
                sum.0 += Double(rgb[i]); sum.1 += Double(rgb[i + 1]); sum.2 += Double(rgb[i + 2])
            }
        }
        let n = Double(w * h)
        return (sum.0 / n, sum.1 / n, sum.2 / n)
    }

    static func pixel(_ rgb: [UInt8], width: Int, x: Int, y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 3
        return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }

    /// MD5 of each audio packet of a file, in order.
    static func audioPacketHashes(_ path: String) throws -> [Substring] {
        let probe = try runProcess("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_packets",
                                                       "-show_data_hash", "MD5", "-of", "flat", path])
        guard probe.status == 0 else { throw "ffprobe failed: \(probe.stderr)" }
        return probe.stdoutText.split(separator: "\n").filter { $0.contains("data_hash=") }.map { $0.split(separator: "=").last! }
    }

    /// The first `seconds` of the sample stored turned a quarter clockwise and tagged to be turned
    /// back for display, written into `dir`: its displayed frames are the sample's, so the
    /// sample's truth applies unchanged.
    static func sampleTurnedForDisplay(seconds: Double, in dir: URL) throws -> String {
        let turned = dir.appendingPathComponent("turned.mp4").path
        let rotated = dir.appendingPathComponent("rotated.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-t", String(seconds), "-vf", "transpose=clock", "-c:v", "libx264", "-crf", "16", turned)
        // FFmpeg 5.1 writes the rotate tag as a display matrix when remuxing.
        try ffmpeg("-i", turned, "-c", "copy", "-metadata:s:v", "rotate=90", rotated)
        return rotated
    }

    /// The first 2 s of the sample with an AAC sine tone added, written into `dir`.
    static func sampleWithAudio(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("audio.mp4").path
        try ffmpeg("-i", Fixtures.sample, "-f", "lavfi", "-i", "sine=frequency=440:duration=10", "-c:v", "copy", "-c:a", "aac",
                   "-shortest", "-t", "2", path)
        return path
    }
}
