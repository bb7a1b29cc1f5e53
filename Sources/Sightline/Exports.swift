// The layers below the tools are part of this library's interface: a client that imports
// Sightline gets the frame values (SightlineFrames), the frame sources and decoded frames
// (SightlineMedia) and the analysis (SightlineAnalysis: Run, the detectors, the record format)
// without importing them too.
@_exported import SightlineFrames
@_exported import SightlineMedia
@_exported import SightlineAnalysis
