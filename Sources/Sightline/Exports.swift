// The layers below the tools are part of this library's interface: a client that imports
// Sightline gets the frame values (SightlineFrames), the record format (SightlineRecords), the frame sources and decoded frames
// (SightlineMedia) and the analysis (SightlineAnalysis: Run, the detectors, the sinks) and the tools on records alone
// (SightlineRecordTools: audit, diff, export, the report page)
// without importing them too.
@_exported import SightlineFrames
@_exported import SightlineRecords
@_exported import SightlineMedia
@_exported import SightlineAnalysis
@_exported import SightlineRecordTools
