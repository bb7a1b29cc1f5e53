import Foundation
import CFuzzerDriver
import FuzzSupport
import Sightline

/// A small video frame to draw the mask on (SIGHTLINE_FUZZ_FRAME names a video; Scripts/fuzz.sh
/// makes one). Without it, only the image is decoded.
nonisolated(unsafe) private let canvas: VideoFrame? = {
    guard let path = ProcessInfo.processInfo.environment["SIGHTLINE_FUZZ_FRAME"],
          let source = try? VideoFileSource(path: path) else { return nil }
    return try? source.nextFrame()
}()

/// The image of `--style mask:IMAGE`: any bytes must give a mask drawn into a face box, or a
/// clean error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMaskImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let path = FuzzInput.file(FuzzInput.bytes(data, size), suffix: ".png")
    guard let painter = try? OverlayPainter(style: .mask(path: path)), let canvas else { return 0 }
    let face = FaceObservation(box: Box(x: 3, y: 2, w: 21, h: 17), score: 1)
    let record = FrameRecord(index: canvas.index, pts: canvas.pts, t: canvas.seconds, faceStatus: .ok, codeStatus: .off,
                             faces: [face], codes: [])
    _ = try? painter.still(record, on: canvas)
    return 0
}

/// The executable's entry point in debug builds (SwiftPM renames `main`): libFuzzer's driver.
@_cdecl("FuzzMaskImage_main")
func fuzzMaskImageMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    sightline_fuzz_main(argc, argv) { data, size in fuzzMaskImage(data, size) }
}
