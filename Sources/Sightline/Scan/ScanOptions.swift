import SightlineAnalysis
import SightlineFrames
import SightlineMedia

/// Everything `sightline scan` is made of: which key frames it samples, what it looks for on
/// them, and how many files it reads at once.
public struct ScanOptions: Sendable {
    public var sampling: KeyFrameSampling
    /// The detectors; every sampled frame gets the full face detection and the full code search.
    public var faces: FaceDetectorOptions
    public var codes: CodeReaderOptions
    /// Threads the sampled frames are analyzed on, each with detectors of its own.
    public var threads = 1
    /// Index of the video stream to read (nil: the best video stream of each file).
    public var streamIndex: Int?
    public var allowNetwork = false
    public var decoderThreads = 0

    public init(sampling: KeyFrameSampling = KeyFrameSampling(), faces: FaceDetectorOptions, codes: CodeReaderOptions) {
        self.sampling = sampling
        self.faces = faces
        self.codes = codes
    }

    /// How each file is opened: key frames only, whole file.
    var sourceOptions: SourceOptions {
        SourceOptions(streamIndex: streamIndex, allowNetwork: allowNetwork, decoderThreads: decoderThreads,
                      keyFrames: sampling)
    }
}
