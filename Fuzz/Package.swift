// swift-tools-version:6.0
// libFuzzer targets for the parsers Sightline feeds with user input. Built apart from the main
// package, with the fuzzer and address sanitizer instrumentation: see Scripts/fuzz.sh.
import PackageDescription

let package = Package(
    name: "SightlineFuzz",
    dependencies: [.package(name: "Sightline", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", .product(name: "Sightline", package: "Sightline")]),
        .executableTarget(name: "FuzzRecords", dependencies: ["FuzzSupport", .product(name: "Sightline", package: "Sightline")]),
        .executableTarget(name: "FuzzMOTChallenge", dependencies: ["FuzzSupport", .product(name: "Sightline", package: "Sightline")]),
        .executableTarget(name: "FuzzModelFetch", dependencies: ["FuzzSupport", .product(name: "Sightline", package: "Sightline")]),
        .executableTarget(name: "FuzzMaskImage", dependencies: ["FuzzSupport", .product(name: "Sightline", package: "Sightline")]),
    ]
)
