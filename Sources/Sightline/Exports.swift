// The layers below the tools are part of this library's interface: a client that imports
// Sightline gets, without importing them too, the frame values (SightlineFrames), the record
// format (SightlineRecords), track ids and identity clustering (SightlineTracking), the frame
// sources and decoded frames (SightlineMedia), the analysis (SightlineAnalysis: Run, the
// detectors, the sinks) and the tools on records (SightlineRecordTools: audit, diff, export, the
// report page, shard plans and merge, people).
@_exported import SightlineFrames
@_exported import SightlineRecords
@_exported import SightlineTracking
@_exported import SightlineMedia
@_exported import SightlineAnalysis
@_exported import SightlineRecordTools
