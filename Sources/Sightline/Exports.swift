// The bottom layer's values are part of this library's interface: a client that imports
// Sightline gets FrameRecord, Box and the rest without importing SightlineFrames too.
@_exported import SightlineFrames
// So are the media layer's frame sources and decoded frames.
@_exported import SightlineMedia
