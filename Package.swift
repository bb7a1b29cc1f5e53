// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Sightline",
    products: [
        .executable(name: "sightline", targets: ["sightline"]),
        .library(name: "Sightline", targets: ["Sightline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, imported through module maps; the shim headers hold the few macros and
        // variadic functions Swift cannot import.
        .systemLibrary(name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat"),
        .systemLibrary(name: "CZBar", path: "Sources/CZBar", pkgConfig: "zbar"),
        .systemLibrary(name: "CJSONC", path: "Sources/CJSONC", pkgConfig: "json-c"),
        .systemLibrary(name: "CV4L2", path: "Sources/CV4L2", pkgConfig: "libv4l2"),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl"),
        // libmosquitto: publishing records to an MQTT broker (capture --publish).
        .systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto"),
        // zxing-cpp 3.1's C API, built by Scripts/deps/build/zxing-cpp.sh into a prefix of its own.
        .systemLibrary(name: "CZXing", path: "Sources/CZXing", pkgConfig: "sightline-zxing-cpp"),
        // OpenVINO's C API (headers only: the library is loaded at run time, see its shim.h).
        .systemLibrary(name: "COpenVINO", path: "Sources/COpenVINO", pkgConfig: "sightline-openvino"),
        // OpenCV behind a small extern "C" API (Swift imports OpenCV's C++ only partly).
        .target(
            name: "CVision",
            path: "Sources/CVision",
            cxxSettings: [
                .unsafeFlags(["-I/usr/include/opencv4"]),
            ],
            linkerSettings: [
                .linkedLibrary("opencv_core"),
                .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_dnn"),
                .linkedLibrary("stdc++"),
            ]
        ),
        // The one zxing-cpp call its C API lacks: a barcode's text with its length.
        .target(name: "CZXingText", dependencies: ["CZXing"], path: "Sources/CZXingText"),
        // The bottom layer, held below every other by the compiler: the values a run produces
        // (geometry, observations, frame, track, cut and summary records, the per-frame plan).
        .target(name: "SightlineFrames", path: "Sources/Sightline/Frames"),
        // The record format, on the frame values only: JSON Lines encoding and writing (json-c),
        // reading records back, the stream record's fields.
        .target(name: "SightlineRecords", dependencies: ["SightlineFrames", "CJSONC"], path: "Sources/Sightline/Records"),
        // Track ids and identities on the values alone, no model: the tracker, the track book,
        // code confirmation, and identity clustering of embedded faces (what `merge` runs again).
        .target(name: "SightlineTracking", dependencies: ["SightlineFrames", "SightlineRecords"],
                path: "Sources/Sightline", sources: ["Tracking", "Linking"]),
        // On the frame values, the one layer that talks to FFmpeg's decoders and V4L2: frame sources (files,
        // cameras, network streams) and the decoded frame with its planes and scaler.
        .target(name: "SightlineMedia", dependencies: ["SightlineFrames", "CFFmpeg", "CV4L2", "CVision"],
                path: "Sources/Sightline", sources: ["Media", "Capture"]),
        // The analysis: inference runtimes and models, detectors, region search, tracker,
        // identities, cuts, the run itself and its sinks (the records file among them).
        .target(name: "SightlineAnalysis",
                dependencies: ["SightlineFrames", "SightlineRecords", "SightlineTracking", "SightlineMedia", "CFFmpeg", "CZBar", "CJSONC", "CCurl", "CZXing", "CZXingText",
                               "COpenVINO", "CVision"],
                path: "Sources/Sightline",
                sources: ["ParallelLanes.swift", "Version.swift", "Inference", "Models", "Cuts", "Detection",
                          "Search", "Identity", "Sync"]),
        // The tools that read records, not video: audit and diff against truth or another run,
        // export to other formats, the report page, shard plans and their merge, people across
        // files (merge and people join tracks and link identities again, without a model).
        .target(name: "SightlineRecordTools", dependencies: ["SightlineFrames", "SightlineRecords", "SightlineTracking"],
                path: "Sources/Sightline", sources: ["Audit", "Export", "Report", "Shards", "People"]),
        // The tools on top of the run: render, anonymize, scan, and publishing to a broker.
        .target(name: "Sightline",
                dependencies: ["SightlineFrames", "SightlineRecords", "SightlineMedia", "SightlineTracking", "SightlineAnalysis",
                               "SightlineRecordTools", "CFFmpeg", "CVision", "CMosquitto"],
                exclude: ["Frames", "Media", "Capture", "ParallelLanes.swift", "Version.swift", "Inference",
                          "Models", "Cuts", "Detection", "Tracking", "Linking", "Search", "Identity", "Sync", "Records", "Audit", "Export",
                          "Report", "Shards", "People"]),
        .executableTarget(
            name: "sightline",
            dependencies: ["Sightline", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "SightlineTests", dependencies: ["Sightline", "SightlineFrames", "SightlineRecords", "SightlineTracking", "SightlineRecordTools", "SightlineMedia", "SightlineAnalysis", "sightline"]),
    ],
    cxxLanguageStandard: .cxx17
)
